#include "minifier/engine.h"

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
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
  MinifyResult Finish() {
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
  bool RunPlan(const std::string& name, const ReductionPlan& plan,
               std::unique_ptr<SearchState> state, ReductionStats& rs);
  bool RunReduction(const ReductionInfo& info);
  RecordedValues* ValuesOfCurrent();
  void RetireValues();
  Prepared Prepare(const ReductionPlan& plan, const std::vector<int>& chosen);
  void Judge(std::vector<Prepared>& batch, ReductionStats& rs);
  void Consume(const Prepared& prepared);
  void Accept(Prepared& prepared, std::string_view reduction);
  void Report(std::string_view reduction, bool accepted);
  void FinalChecks();

  Interestingness& interestingness_;
  const MinifyOptions& options_;
  absl::Time start_time_;
  Candidate current_;
  Score current_score_;
  std::string current_key_;
  MinifyStats stats_;
  absl::flat_hash_map<std::string, MemoEntry> memo_;
  absl::flat_hash_map<std::string, std::string> settled_;  // reduction -> key
  // Declared before values_, which reads from it.
  std::unique_ptr<ScratchStore> scratch_;
  std::string values_key_;
  std::unique_ptr<RecordedValues> values_;
  // An error that ends the run (a recorded value could not be stored or read).
  absl::Status fatal_;
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
  absl::StatusOr<std::vector<HostTensor>> values = RecordValues(current_, options_.fp64_values);
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

Prepared Engine::Prepare(const ReductionPlan& plan, const std::vector<int>& chosen) {
  Prepared p;
  absl::StatusOr<Candidate> built = plan.build(chosen);
  if (values_ != nullptr && !values_->status().ok()) {
    // Not an invalid candidate: the run cannot go on without its values
    // (one could not be read, or spilled to the store).
    fatal_ = values_->status();
    return p;
  }
  if (!built.ok() || !compiler::Verify(built->graph).ok()) {
    ++stats_.invalid_candidates;
    return p;
  }
  p.candidate = *std::move(built);
  if (!(ComputeScore(p.candidate) < current_score_)) {
    ++stats_.not_smaller;
    p.state = Prepared::State::kNotSmaller;
    return p;
  }
  if (!interestingness_.CanMatch(p.candidate)) {
    ++stats_.cannot_match;
    p.state = Prepared::State::kCannotMatch;
    return p;
  }
  p.key = CandidateKey(p.candidate);
  auto it = memo_.find(p.key);
  if (it != memo_.end()) {
    ++stats_.cache_hits;
    p.state = Prepared::State::kKnown;
    p.interesting = it->second.result.interesting;
    return p;
  }
  p.state = Prepared::State::kToJudge;
  return p;
}

void Engine::Judge(std::vector<Prepared>& batch, ReductionStats& rs) {
  std::vector<int> to_judge;
  for (int i = 0; i < static_cast<int>(batch.size()); ++i) {
    if (batch[i].state != Prepared::State::kToJudge) continue;
    bool duplicate = false;
    for (int j : to_judge) duplicate |= batch[j].key == batch[i].key;
    if (!duplicate) to_judge.push_back(i);
  }
  std::vector<absl::StatusOr<InterestingnessResult>> results(to_judge.size(),
                                                              InterestingnessResult{});
  auto run = [&](size_t k) { results[k] = interestingness_.Judge(batch[to_judge[k]].candidate); };
  if (to_judge.size() == 1 || options_.jobs <= 1) {
    for (size_t k = 0; k < to_judge.size(); ++k) run(k);
  } else {
    std::vector<std::thread> threads;
    for (size_t k = 0; k < to_judge.size(); ++k) threads.emplace_back(run, k);
    for (std::thread& t : threads) t.join();
  }
  for (size_t k = 0; k < to_judge.size(); ++k) {
    ++stats_.oracle_calls;
    ++rs.oracle_calls;
    if (!results[k].ok()) {
      ++stats_.invalid_candidates;
      memo_[batch[to_judge[k]].key] = MemoEntry{};
      continue;
    }
    if (results[k]->drift) ++stats_.rejected_drifts;
    memo_[batch[to_judge[k]].key] = MemoEntry{*results[k]};
  }
  for (Prepared& p : batch) {
    if (p.state == Prepared::State::kToJudge) p.interesting = memo_[p.key].result.interesting;
  }
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
  ++stats_.accepted_steps;
  stats_.final_score = current_score_;
  stats_.seconds = Elapsed();
  stats_.history.push_back({stats_.oracle_calls, current_score_.compute_nodes(), stats_.seconds});
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
                     std::unique_ptr<SearchState> state, ReductionStats& rs) {
  bool progress = false;
  const int jobs = std::max(1, options_.jobs);
  // Speculation guesses that each proposal gets the answer the previous one
  // got (a binary search that keeps succeeding, like cut_head shrinking to
  // its culprit, then wastes nothing). A proposal made under a wrong guess is
  // not consumed; its answer stays in the memo.
  bool guess = false;
  while (!ShouldStop()) {
    std::vector<std::vector<int>> proposals;
    std::vector<bool> assumed;
    std::unique_ptr<SearchState> speculation = state->Clone();
    while (static_cast<int>(proposals.size()) < jobs) {
      std::optional<std::vector<int>> next = speculation->Next();
      if (!next.has_value()) break;
      proposals.push_back(*std::move(next));
      assumed.push_back(guess);
      speculation->Report(guess);
    }
    if (proposals.empty()) break;
    std::vector<Prepared> batch;
    for (const std::vector<int>& chosen : proposals) batch.push_back(Prepare(plan, chosen));
    if (!fatal_.ok()) break;
    rs.candidates += static_cast<int64_t>(batch.size());
    Judge(batch, rs);
    for (size_t i = 0; i < batch.size(); ++i) {
      Prepared& p = batch[i];
      Consume(p);
      state->Next();
      state->Report(p.interesting);
      guess = p.interesting;
      if (p.interesting) {
        // The next proposal, if judged, is re-prepared against the new
        // current candidate and answered from the memo.
        ++rs.accepted;
        Accept(p, name);
        progress = true;
        break;
      }
      // Later proposals assumed this one would be interesting.
      if (assumed[i]) break;
    }
    Report(name, false);
  }
  return progress;
}

bool Engine::RunReduction(const ReductionInfo& info) {
  std::string name(info.name);
  auto settled = settled_.find(name);
  if (settled != settled_.end() && settled->second == current_key_) return false;
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
  bool progress = RunPlan(name, plan, MakeSearch(info.search, plan.num_targets), rs);
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
      for (const ReductionInfo& info : AllReductions()) {
        if (!Selected(info) || (nodes_only && info.phase == ReductionPhase::kValues)) continue;
        changed |= RunReduction(info);
        if (ShouldStop()) return;
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
  // others are fresh calls (the memo would only repeat it).
  auto judged = memo_.find(current_key_);
  for (int i = 0; i < options_.reproduce_runs; ++i) {
    ++stats_.reproduce_attempts;
    if (i == 0 && judged != memo_.end()) {
      stats_.reproduce_runs += judged->second.result.interesting;
      continue;
    }
    ++stats_.oracle_calls;
    ++stats_.oracle_calls_used;
    absl::StatusOr<InterestingnessResult> result = interestingness_.Judge(current_);
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
  stats_.history.push_back({stats_.oracle_calls, current_score_.compute_nodes(), Elapsed()});
  FixedPoint();
  if (!ShouldStop()) FinalChecks();
  return fatal_;
}

}  // namespace

absl::StatusOr<MinifyResult> Minify(Candidate start, Interestingness& interestingness,
                                    const MinifyOptions& options) {
  Engine engine(interestingness, options);
  if (absl::Status s = engine.Run(std::move(start)); !s.ok()) return s;
  return engine.Finish();
}

}  // namespace rk::minifier
