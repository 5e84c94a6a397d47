// The schedule of a minimization: the start's judgement, the reductions to a
// fixed point, the final single-removal checks, accepting steps and reporting
// them. How candidates are judged (memo, threads, speculation) is
// engine_speculation.cc; the state both share is engine_state.h.
#include "minifier/engine.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/sha256.h"
#include "compiler/ir/verifier.h"
#include "minifier/reduction.h"
#include "minifier/rewrite.h"
#include "minifier/scratch_store.h"
#include "minifier/engine_state.h"
#include "minifier/search.h"

namespace rk::minifier {
namespace {

using compiler::NodeId;

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

}  // namespace

namespace engine_internal {

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

}  // namespace engine_internal

using engine_internal::Engine;

absl::StatusOr<MinifyResult> Minify(Candidate start, Interestingness& interestingness,
                                    const MinifyOptions& options) {
  Engine engine(interestingness, options);
  if (absl::Status s = engine.Run(std::move(start)); !s.ok()) return s;
  return engine.Finish();
}

}  // namespace rk::minifier
