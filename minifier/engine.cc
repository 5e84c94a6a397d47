#include "minifier/engine.h"

#include <algorithm>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/sha256.h"
#include "compiler/ir/verifier.h"
#include "minifier/reduction.h"
#include "minifier/rewrite.h"
#include "minifier/scratch_store.h"
#include "minifier/search.h"

namespace rk::minifier {
namespace {

using compiler::HostTensor;
using compiler::NodeId;

// A judged candidate. `consumed`: a search has used the answer (what
// oracle_calls_used counts; speculative answers may never be).
struct MemoEntry {
  InterestingnessResult result;
  bool consumed = false;
};

// One proposal on its way to a verdict.
struct Prepared {
  enum class State { kInvalid, kNotSmaller, kCannotMatch, kKnown, kToJudge };
  State state = State::kInvalid;
  Candidate candidate;
  std::string key;
  bool interesting = false;
};

// Proposes each target alone, in order: the final single-removal check.
class EachTarget : public SearchState {
 public:
  explicit EachTarget(int n) : n_(n) {}
  std::unique_ptr<SearchState> Clone() const override {
    return std::make_unique<EachTarget>(*this);
  }
  std::optional<std::vector<int>> Next() override {
    if (next_ >= n_) return std::nullopt;
    return std::vector<int>{next_++};
  }
  void Report(bool interesting) override {
    if (interesting) next_ = n_;
  }

 private:
  int n_, next_ = 0;
};

// The final check's targets: every compute node (cut to an input) and, when
// there are several, every output (dropped).
ReductionPlan SingleRemovals(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<NodeId> nodes = ComputeNodeIds(base.graph);
  int num_outputs = static_cast<int>(base.graph.outputs().size());
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(nodes.size()) + (num_outputs > 1 ? num_outputs : 0);
  plan.build = [&base, values = input.values, nodes](absl::Span<const int> chosen) {
    GraphEdit edit(base.graph);
    int t = chosen[0];
    if (t < static_cast<int>(nodes.size())) {
      edit.ToInput(nodes[t]);
    } else {
      std::vector<NodeId> outputs = base.graph.outputs();
      outputs.erase(outputs.begin() + (t - nodes.size()));
      edit.outputs = outputs;
    }
    return ApplyEdit(base, values, edit);
  };
  return plan;
}

class Engine {
 public:
  Engine(Interestingness& interestingness, const MinifyOptions& options)
      : interestingness_(interestingness), options_(options), start_time_(absl::Now()) {}

  absl::Status Run(Candidate start);
  ~Engine() { SettleInFlight(); }
  MinifyResult Finish() {
    SettleInFlight();
    RetireValues();
    stats_.final_score = current_score_;
    stats_.seconds = Elapsed();
    return MinifyResult{std::move(current_), std::move(stats_)};
  }

 private:
  double Elapsed() const { return absl::ToDoubleSeconds(absl::Now() - start_time_); }
  bool ShouldStop();
  bool Selected(const ReductionInfo& info) const;
  void FixedPoint();
  // The speculation of one plan: the search followed ahead of the replay
  // under assumed answers (RunPlan).
  struct Chain {
    std::unique_ptr<SearchState> state;  // after every proposal below
    Score score;                         // the current one's, under the assumed answers
    bool answer = false;                 // the guess for the next proposal to judge
    std::deque<Prepared> proposals;      // not consumed yet, in order
    std::deque<bool> assumed;            // the answer each was given
    int pending = 0;                     // proposals to judge among them
    bool done = false;                   // the search has nothing more to propose
    // The candidate the plan ends on if the assumed answers hold (null: the
    // current one).
    std::shared_ptr<const Candidate> assumed_final;
    bool looked_ahead = false;
    void Restart(const SearchState& from, const Score& score_now, bool guess);
  };
  bool RunPlan(const std::string& name, const ReductionPlan& plan,
               std::unique_ptr<SearchState> state, ReductionStats& rs,
               const ReductionInfo* next = nullptr);
  // Lookahead: once a plan has asked for every judgement it can need,
  // starts the first judgement `next` will ask for on the candidate the
  // plan ends on if the answers assumed hold (its answer is found by key).
  void Prelaunch(const ReductionInfo& next, const Candidate& assumed);
  // Grows `chain` while workers are free (at most `jobs` judgements ahead).
  void Extend(const ReductionPlan& plan, Chain& chain, ReductionStats& rs);
  // Whether another judgement may be started that the replay may not need.
  bool MaySpeculate() const;
  // Whether the judgement of `key` has its answer (or is not in flight).
  bool Answered(const std::string& key) const;
  // Waits for that answer; with `poll`, at most a millisecond.
  void WaitForAnswer(const std::string& key, bool poll);
  // `next`: the reduction the schedule runs after this one, for the
  // lookahead (null: none).
  bool RunReduction(const ReductionInfo& info, const ReductionInfo* next);
  RecordedValues* ValuesOfCurrent();
  void RetireValues();
  // `current`: the score the candidate must beat (the current one's, or the
  // one speculation assumes it will have by then).
  // `count`: whether what it finds goes into the stats (not for the
  // lookahead's proposals, which -j 1 makes later or never).
  Prepared Prepare(const ReductionPlan& plan, const std::vector<int>& chosen,
                   const Score& current, bool count = true);
  // Starts judging `p` (kToJudge, neither judged nor in flight) on a thread
  // of its own; the answer lands in the memo when Await or Harvest takes it.
  void Launch(const Prepared& p, ReductionStats& rs);
  // Moves the answers of finished judgements into the memo.
  void Harvest();
  // The answer for `p` (kToJudge): from the memo, or waited for.
  void Await(Prepared& p);
  void Record(const std::string& key, const absl::StatusOr<InterestingnessResult>& result);
  // Waits for every judgement still in flight and records it.
  void SettleInFlight();
  void Consume(const Prepared& prepared);
  void Accept(Prepared& prepared, std::string_view reduction);
  void Report(std::string_view reduction, bool accepted);
  void FinalChecks();
  // Judges the current candidate (the start): an error unless it fails the
  // expected way.
  absl::Status JudgeStart();
  // With jobs > 1: starts that judgement beside the first proposals, so the
  // first round of speculation does not wait for it (steps accepted before
  // its answer are reported to on_accept only once it fails as expected).
  void LaunchStart();
  // Whether the start fails the expected way, waiting for its judgement when
  // it was launched; sets fatal_ otherwise.
  bool StartFails();

  Interestingness& interestingness_;
  const MinifyOptions& options_;
  absl::Time start_time_;
  Candidate current_;
  Score current_score_;
  std::string current_key_;
  MinifyStats stats_;
  absl::flat_hash_map<std::string, MemoEntry> memo_;
  // Judgements started and not yet recorded: speculation does not wait for
  // answers no replay needs (a slow candidate on a branch not taken).
  absl::flat_hash_map<std::string, std::shared_future<absl::StatusOr<InterestingnessResult>>>
      in_flight_;
  absl::flat_hash_map<std::string, std::string> settled_;  // reduction -> key
  // The start's judgement while LaunchStart's answer is not taken yet.
  std::optional<std::shared_future<absl::StatusOr<InterestingnessResult>>> start_judgement_;
  std::string start_key_;
  // The reduction of the last step accepted while the start's judgement was
  // pending (reported once it fails as expected).
  std::optional<std::string> unreported_step_;
  // Declared before values_, which reads from it.
  std::unique_ptr<ScratchStore> scratch_;
  std::string values_key_;
  std::unique_ptr<RecordedValues> values_;
  // An error that ends the run (a recorded value could not be stored or read).
  absl::Status fatal_;
  // Whether the reduction after the lookahead's one needs recorded values:
  // the lookahead then also computes the values of the candidate it judges
  // (on a thread), for the case it becomes the current one.
  bool lookahead_values_ = false;
  struct PrefetchedValues {
    std::string key;
    std::shared_future<absl::StatusOr<std::vector<HostTensor>>> values;
  };
  std::optional<PrefetchedValues> prefetched_;
  // Prefetches no longer wanted: kept until the engine ends, since dropping
  // the last handle of a running std::async waits for it.
  std::vector<PrefetchedValues> abandoned_;
  void DropPrefetch() {
    if (prefetched_.has_value()) abandoned_.push_back(*std::move(prefetched_));
    prefetched_.reset();
  }
};

bool Engine::ShouldStop() {
  if (!fatal_.ok()) return true;
  if (options_.stop != nullptr && options_.stop->load()) {
    stats_.interrupted = true;
    return true;
  }
  if (options_.time_limit_seconds > 0 && Elapsed() > options_.time_limit_seconds) {
    stats_.timed_out = true;
    return true;
  }
  return false;
}

bool Engine::Selected(const ReductionInfo& info) const {
  if (!options_.only.empty()) {
    return std::find(options_.only.begin(), options_.only.end(), info.name) !=
           options_.only.end();
  }
  switch (info.oracles) {
    case OracleCost::kAnyOracle: return true;
    case OracleCost::kCheapOracle: return !options_.costly_oracle;
    case OracleCost::kCostlyOracle: return options_.costly_oracle;
  }
  return true;
}

void Engine::RetireValues() {
  if (values_ == nullptr) return;
  ValueCacheCounters c = values_->counters();
  stats_.values.recorded += c.recorded;
  stats_.values.stored += c.stored;
  stats_.values.loads += c.loads;
  stats_.values.hits += c.hits;
  stats_.values.peak_resident = std::max(stats_.values.peak_resident, c.peak_resident);
  values_.reset();
  values_key_.clear();
}

// Null when the reference interpreter cannot evaluate the candidate (the
// reduction is then skipped, as before) or when the values cannot be stored
// (fatal_ is set).
RecordedValues* Engine::ValuesOfCurrent() {
  if (values_ != nullptr && values_key_ == current_key_) return values_.get();
  RetireValues();
  absl::StatusOr<std::vector<HostTensor>> values =
      prefetched_.has_value() && prefetched_->key == current_key_
          ? prefetched_->values.get()
          : RecordValues(current_, options_.fp64_values);
  DropPrefetch();
  if (!values.ok()) return nullptr;
  repro::Store* store = options_.value_store;
  if (store == nullptr) {
    if (scratch_ == nullptr) scratch_ = std::make_unique<ScratchStore>();
    store = scratch_.get();
  }
  absl::StatusOr<std::unique_ptr<RecordedValues>> recorded =
      RecordedValues::Put(current_.graph, *std::move(values), *store, options_.value_cache);
  if (!recorded.ok()) {
    fatal_ = recorded.status();
    return nullptr;
  }
  values_ = *std::move(recorded);
  values_key_ = current_key_;
  return values_.get();
}

Prepared Engine::Prepare(const ReductionPlan& plan, const std::vector<int>& chosen,
                         const Score& current, bool count) {
  Prepared p;
  absl::StatusOr<Candidate> built = plan.build(chosen);
  if (values_ != nullptr && !values_->status().ok()) {
    // Not an invalid candidate: the run cannot go on without its values
    // (one could not be read, or spilled to the store).
    fatal_ = values_->status();
    return p;
  }
  if (!built.ok() || !compiler::Verify(built->graph).ok()) {
    stats_.invalid_candidates += count;
    return p;
  }
  p.candidate = *std::move(built);
  if (!(ComputeScore(p.candidate) < current)) {
    stats_.not_smaller += count;
    p.state = Prepared::State::kNotSmaller;
    return p;
  }
  if (!interestingness_.CanMatch(p.candidate)) {
    stats_.cannot_match += count;
    p.state = Prepared::State::kCannotMatch;
    return p;
  }
  p.key = CandidateKey(p.candidate);
  auto it = memo_.find(p.key);
  if (it != memo_.end()) {
    stats_.cache_hits += count;
    p.state = Prepared::State::kKnown;
    p.interesting = it->second.result.interesting;
    return p;
  }
  p.state = Prepared::State::kToJudge;
  return p;
}

void Engine::Launch(const Prepared& p, ReductionStats& rs) {
  ++stats_.oracle_calls;
  ++rs.oracle_calls;
  // A copy: Accept may move the proposal's candidate while it is judged.
  auto candidate = std::make_shared<const Candidate>(p.candidate);
  Interestingness* judge = &interestingness_;
  // With one job the only judgement started is the one the replay needs
  // next: run it on the spot, on this thread.
  const std::launch policy = options_.jobs > 1 ? std::launch::async : std::launch::deferred;
  in_flight_[p.key] =
      std::async(policy, [judge, candidate] { return judge->Judge(*candidate); }).share();
}

void Engine::Record(const std::string& key,
                    const absl::StatusOr<InterestingnessResult>& result) {
  if (!result.ok()) {
    ++stats_.invalid_candidates;
    memo_[key] = MemoEntry{};
    return;
  }
  if (result->drift) ++stats_.rejected_drifts;
  memo_[key] = MemoEntry{*result};
}

void Engine::Harvest() {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    if (it->second.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      ++it;
      continue;
    }
    Record(it->first, it->second.get());
    in_flight_.erase(it++);
  }
}

void Engine::Await(Prepared& p) {
  if (auto it = in_flight_.find(p.key); it != in_flight_.end()) {
    Record(p.key, it->second.get());
    in_flight_.erase(it);
  }
  p.interesting = memo_[p.key].result.interesting;
}

void Engine::SettleInFlight() {
  for (auto& [key, result] : in_flight_) Record(key, result.get());
  in_flight_.clear();
}

void Engine::Consume(const Prepared& prepared) {
  if (prepared.state != Prepared::State::kKnown && prepared.state != Prepared::State::kToJudge) {
    return;
  }
  MemoEntry& entry = memo_[prepared.key];
  if (!entry.consumed) {
    entry.consumed = true;
    ++stats_.oracle_calls_used;
  }
}

void Engine::Accept(Prepared& prepared, std::string_view reduction) {
  stats_.signature = memo_[prepared.key].result.signature;
  current_ = std::move(prepared.candidate);
  current_score_ = ComputeScore(current_);
  current_key_ = prepared.key;
  stats_.accepted_sequence = Sha256Hex(stats_.accepted_sequence + current_key_);
  ++stats_.accepted_steps;
  stats_.final_score = current_score_;
  stats_.seconds = Elapsed();
  stats_.history.push_back({stats_.oracle_calls, current_score_.compute_nodes(), stats_.seconds});
  // Steps accepted before the start's answer is in are reported once it
  // is (StartFails): nothing is written for an input that does not fail.
  if (start_judgement_.has_value()) {
    unreported_step_ = std::string(reduction);
    return;
  }
  if (options_.on_accept) options_.on_accept(current_, stats_);
  Report(reduction, true);
}

void Engine::Report(std::string_view reduction, bool accepted) {
  if (!options_.on_progress) return;
  ProgressEvent event;
  event.reduction = reduction;
  event.nodes_now = current_score_.compute_nodes();
  event.nodes_start = stats_.start_score.compute_nodes();
  event.oracle_calls = stats_.oracle_calls;
  event.cache_hits = stats_.cache_hits;
  event.elapsed_seconds = Elapsed();
  event.accepted = accepted;
  options_.on_progress(event);
}

bool Engine::RunPlan(const std::string& name, const ReductionPlan& plan,
                     std::unique_ptr<SearchState> state, ReductionStats& rs,
                     const ReductionInfo* next) {
  bool progress = false;
  const int jobs = std::max(1, options_.jobs);
  // Speculation follows the search on a clone (the chain) ahead of the
  // replay. A proposal whose answer is already known (memo, invalid, not
  // smaller, cannot match) is answered with it and takes no worker; one to
  // judge is answered with a guess: the answer the proposal before it got (a
  // search that keeps succeeding, like cut_head or truncate_tail closing in
  // on the culprit, then wastes nothing). Each proposal is prepared against
  // the score the candidate would have under the answers assumed before it,
  // exactly as -j 1 would prepare it once those answers are real. The chain
  // grows whenever a worker is free (at most `jobs` judgements ahead of the
  // replay), also while the replay waits, so a worker freed by a judgement
  // of an abandoned branch is used at once. The replay consumes the chain in
  // order, accepting every interesting proposal, until an answer differs
  // from the one assumed: the chain after it was made for another branch
  // and starts again from the replay's state; the answers already asked for
  // only land in the memo.
  Chain chain;
  bool guess = plan.first_guess_interesting;
  chain.Restart(*state, current_score_, guess);
  while (!ShouldStop()) {
    // A start that does not fail ends the run as soon as that is known.
    if (start_judgement_.has_value() &&
        start_judgement_->wait_for(std::chrono::seconds(0)) == std::future_status::ready &&
        !StartFails()) {
      break;
    }
    Harvest();
    Extend(plan, chain, rs);
    if (!fatal_.ok() || chain.proposals.empty()) break;
    if (next != nullptr && chain.done && !chain.looked_ahead && chain.pending < jobs) {
      chain.looked_ahead = true;
      Prelaunch(*next, chain.assumed_final != nullptr ? *chain.assumed_final : current_);
    }
    Prepared& p = chain.proposals.front();
    if (p.state == Prepared::State::kToJudge && !Answered(p.key)) {
      // A worker freed meanwhile extends the chain; otherwise nothing but
      // this answer can move the search on.
      const bool could_extend = !chain.done && chain.pending < jobs;
      WaitForAnswer(p.key, could_extend);
      continue;
    }
    if (p.state == Prepared::State::kToJudge) {
      Await(p);
      --chain.pending;
    }
    Consume(p);
    state->Next();
    state->Report(p.interesting);
    guess = p.interesting;
    const bool mismatch = chain.assumed.front() != p.interesting;
    if (p.interesting) {
      ++rs.accepted;
      Accept(p, name);
      progress = true;
    }
    chain.proposals.pop_front();
    chain.assumed.pop_front();
    if (mismatch) {
      chain.Restart(*state, current_score_, guess);
      Report(name, false);
    }
  }
  Report(name, false);
  return progress;
}

void Engine::Chain::Restart(const SearchState& from, const Score& score_now, bool guess) {
  state = from.Clone();
  score = score_now;
  answer = guess;
  proposals.clear();
  assumed.clear();
  pending = 0;
  done = false;
  assumed_final.reset();
  looked_ahead = false;
}

void Engine::Extend(const ReductionPlan& plan, Chain& chain, ReductionStats& rs) {
  const int jobs = std::max(1, options_.jobs);
  while (!chain.done && chain.pending < jobs) {
    const int busy =
        static_cast<int>(in_flight_.size()) + (start_judgement_.has_value() ? 1 : 0);
    // Judgements of abandoned branches (or the start's) hold workers; with
    // nothing of its own to wait for, the chain still asks for one.
    if (busy >= jobs && chain.pending > 0) return;
    if (chain.pending > 0 && !MaySpeculate()) return;
    std::optional<std::vector<int>> next = chain.state->Next();
    if (!next.has_value()) {
      chain.done = true;
      return;
    }
    Prepared p = Prepare(plan, *next, chain.score);
    if (!fatal_.ok()) return;
    ++rs.candidates;
    if (p.state == Prepared::State::kToJudge) {
      if (!in_flight_.contains(p.key) && !memo_.contains(p.key)) Launch(p, rs);
      ++chain.pending;
    } else {
      chain.answer = p.interesting;
    }
    if (chain.answer) {
      chain.score = ComputeScore(p.candidate);
      chain.assumed_final = std::make_shared<const Candidate>(p.candidate);
    }
    chain.state->Report(chain.answer);
    chain.assumed.push_back(chain.answer);
    chain.proposals.push_back(std::move(p));
  }
}

void Engine::Prelaunch(const ReductionInfo& next, const Candidate& assumed) {
  const int busy = static_cast<int>(in_flight_.size()) + (start_judgement_.has_value() ? 1 : 0);
  if (busy >= std::max(1, options_.jobs) || !MaySpeculate()) return;
  std::string name(next.name);
  if (auto settled = settled_.find(name);
      settled != settled_.end() && settled->second == CandidateKey(assumed)) {
    return;
  }
  ReductionPlan plan = next.plan(ReductionInput{assumed, nullptr});
  std::unique_ptr<SearchState> search = MakeSearch(next.search, plan.num_targets);
  Score score = ComputeScore(assumed);
  // Through proposals answered without a call, to the first one to judge.
  constexpr int kMaxKnown = 64;
  for (int i = 0; i < kMaxKnown; ++i) {
    std::optional<std::vector<int>> proposal = search->Next();
    if (!proposal.has_value()) return;
    Prepared p = Prepare(plan, *proposal, score, /*count=*/false);
    if (!fatal_.ok()) return;
    if (p.state == Prepared::State::kToJudge) {
      if (!in_flight_.contains(p.key)) Launch(p, stats_.For(name));
      if (lookahead_values_) {
        DropPrefetch();
        auto candidate = std::make_shared<const Candidate>(p.candidate);
        const bool fp64 = options_.fp64_values;
        prefetched_ = PrefetchedValues{
            p.key, std::async(std::launch::async, [candidate, fp64] {
                     return RecordValues(*candidate, fp64);
                   }).share()};
      }
      return;
    }
    if (p.interesting) score = ComputeScore(p.candidate);
    search->Report(p.interesting);
  }
}

bool Engine::MaySpeculate() const {
  // Calls issued stay within twice the calls used (what -j 1 issues) plus
  // one round of workers: a search whose guesses keep failing (the bits of
  // a binary search over random cut points) is not followed far ahead.
  return stats_.oracle_calls + 1 <= 2 * stats_.oracle_calls_used + std::max(1, options_.jobs);
}

bool Engine::Answered(const std::string& key) const {
  auto it = in_flight_.find(key);
  // A deferred judgement (-j 1) runs when its answer is taken.
  return it == in_flight_.end() ||
         it->second.wait_for(std::chrono::seconds(0)) != std::future_status::timeout;
}

void Engine::WaitForAnswer(const std::string& key, bool poll) {
  auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return;
  if (poll) {
    it->second.wait_for(std::chrono::milliseconds(1));
  } else {
    it->second.wait();
  }
}

bool Engine::RunReduction(const ReductionInfo& info, const ReductionInfo* next) {
  std::string name(info.name);
  auto settled = settled_.find(name);
  if (settled != settled_.end() && settled->second == current_key_) return false;
  stats_.For(name);
  // The lookahead adds to the next one's calls: its entry exists before `rs`
  // is taken (For appends, which would move the entries).
  if (next != nullptr) stats_.For(std::string(next->name));
  ReductionStats& rs = stats_.For(name);
  ++rs.runs;
  absl::Time start = absl::Now();
  Candidate base = current_;
  RecordedValues* values = nullptr;
  if (info.needs_values) {
    values = ValuesOfCurrent();
    if (values == nullptr) return false;
  }
  Report(name, false);
  std::string base_key = current_key_;
  ReductionPlan plan = info.plan(ReductionInput{base, values});
  bool progress = RunPlan(name, plan, MakeSearch(info.search, plan.num_targets), rs, next);
  rs.seconds += absl::ToDoubleSeconds(absl::Now() - start);
  if (!progress && !stats_.interrupted && !stats_.timed_out) settled_[name] = base_key;
  return progress;
}

void Engine::FixedPoint() {
  // The reductions that remove nodes first, to their own fixed point; those
  // that only shrink values (kValues) join after, when the graph is small:
  // spent on a large graph, their calls are mostly repeated on its parts.
  for (bool nodes_only : {true, false}) {
    bool changed = true;
    while (changed && !ShouldStop()) {
      changed = false;
      bool first = true;
      std::vector<const ReductionInfo*> round;
      for (const ReductionInfo& info : AllReductions()) {
        if (!Selected(info) || (nodes_only && info.phase == ReductionPhase::kValues)) continue;
        round.push_back(&info);
      }
      for (size_t i = 0; i < round.size(); ++i) {
        const ReductionInfo& info = *round[i];
        // The lookahead (-j > 1) starts the next reduction's first
        // judgement early; not into one that needs recorded values, nor
        // with a costly oracle's schedule, which may run window_scan again.
        const ReductionInfo* next = i + 1 < round.size() ? round[i + 1] : nullptr;
        if (next != nullptr &&
            (options_.jobs <= 1 || options_.costly_oracle || next->needs_values)) {
          next = nullptr;
        }
        lookahead_values_ =
            next != nullptr && i + 2 < round.size() && round[i + 2]->needs_values;
        const bool progress = RunReduction(info, next);
        changed |= progress;
        if (ShouldStop()) return;
        // A costly oracle's first reduction (window_scan) keeps a small part
        // of the graph that still fails: it runs again on that part before
        // the others, which would pay for probes of the larger graph. (Not
        // after the others' progress: a failure no window shows alone, e.g.
        // one that needs two distant nodes, would pay a scan for each step.)
        if (progress && first && options_.costly_oracle) break;
        first = false;
      }
    }
  }
}

void Engine::FinalChecks() {
  constexpr int kMaxRounds = 8;
  for (int round = 0; round < kMaxRounds && !ShouldStop(); ++round) {
    RecordedValues* values = ValuesOfCurrent();
    if (values == nullptr) break;
    Candidate base = current_;
    ReductionPlan plan = SingleRemovals(ReductionInput{base, values});
    ReductionStats& rs = stats_.For("final_check");
    ++rs.runs;
    absl::Time start = absl::Now();
    bool progress = RunPlan("final_check", plan, std::make_unique<EachTarget>(plan.num_targets),
                            rs);
    rs.seconds += absl::ToDoubleSeconds(absl::Now() - start);
    if (!progress) {
      stats_.one_minimal = !ShouldStop();
      break;
    }
    FixedPoint();
  }
  if (!fatal_.ok()) return;
  // The judgement that accepted the result is the first of the runs; the
  // others are fresh calls (the memo would only repeat it), side by side
  // with -j.
  auto judged = memo_.find(current_key_);
  std::vector<std::future<absl::StatusOr<InterestingnessResult>>> fresh;
  const std::launch policy = options_.jobs > 1 ? std::launch::async : std::launch::deferred;
  for (int i = 0; i < options_.reproduce_runs; ++i) {
    ++stats_.reproduce_attempts;
    if (i == 0 && judged != memo_.end()) {
      stats_.reproduce_runs += judged->second.result.interesting;
      continue;
    }
    ++stats_.oracle_calls;
    ++stats_.oracle_calls_used;
    fresh.push_back(std::async(policy, [this] { return interestingness_.Judge(current_); }));
  }
  for (auto& f : fresh) {
    absl::StatusOr<InterestingnessResult> result = f.get();
    if (result.ok() && result->interesting) ++stats_.reproduce_runs;
  }
  stats_.flaky = stats_.reproduce_runs < stats_.reproduce_attempts;
}

absl::Status Engine::Run(Candidate start) {
  if (absl::Status s = compiler::Verify(start.graph); !s.ok()) return s;
  current_ = std::move(start);
  current_score_ = ComputeScore(current_);
  current_key_ = CandidateKey(current_);
  stats_.start_score = stats_.final_score = current_score_;
  // A costly oracle judges the start only when no smaller candidate fails
  // the expected way: one that does already shows the failure reproduces.
  if (!options_.costly_oracle) {
    if (options_.jobs > 1) {
      LaunchStart();
    } else if (absl::Status s = JudgeStart(); !s.ok()) {
      return s;
    }
  }
  stats_.history.push_back({stats_.oracle_calls, current_score_.compute_nodes(), Elapsed()});
  FixedPoint();
  // The launched start's answer may still be to check (nothing accepted, a
  // stop), and steps accepted before it to report.
  if (!StartFails()) return fatal_;
  if (stats_.accepted_steps == 0 && !memo_.contains(current_key_) && !ShouldStop()) {
    SettleInFlight();
    if (absl::Status s = JudgeStart(); !s.ok()) return s;
  }
  if (!ShouldStop()) FinalChecks();
  return fatal_;
}

void Engine::LaunchStart() {
  start_key_ = current_key_;
  ++stats_.oracle_calls;
  ++stats_.oracle_calls_used;
  auto candidate = std::make_shared<const Candidate>(current_);
  Interestingness* judge = &interestingness_;
  start_judgement_ =
      std::async(std::launch::async, [judge, candidate] { return judge->Judge(*candidate); })
          .share();
}

bool Engine::StartFails() {
  if (!start_judgement_.has_value()) return fatal_.ok();
  absl::StatusOr<InterestingnessResult> first = start_judgement_->get();
  start_judgement_.reset();
  if (!first.ok()) {
    fatal_ = first.status();
    return false;
  }
  if (!first->interesting) {
    fatal_ = absl::FailedPreconditionError(absl::StrCat(
        "the input does not reproduce its expected failure (observed: ", first->signature, ")"));
    return false;
  }
  memo_[start_key_] = MemoEntry{*first, true};
  if (stats_.accepted_steps == 0) stats_.signature = first->signature;
  if (unreported_step_.has_value()) {
    const std::string reduction = *std::move(unreported_step_);
    unreported_step_.reset();
    if (options_.on_accept) options_.on_accept(current_, stats_);
    Report(reduction, true);
  }
  return true;
}

absl::Status Engine::JudgeStart() {
  ++stats_.oracle_calls;
  ++stats_.oracle_calls_used;
  absl::StatusOr<InterestingnessResult> first = interestingness_.Judge(current_);
  if (!first.ok()) return first.status();
  if (!first->interesting) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the input does not reproduce its expected failure (observed: ", first->signature, ")"));
  }
  memo_[current_key_] = MemoEntry{*first, true};
  stats_.signature = first->signature;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MinifyResult> Minify(Candidate start, Interestingness& interestingness,
                                    const MinifyOptions& options) {
  Engine engine(interestingness, options);
  if (absl::Status s = engine.Run(std::move(start)); !s.ok()) return s;
  return engine.Finish();
}

}  // namespace rk::minifier
