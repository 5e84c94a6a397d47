// The minimization engine's state, shared by the files that implement it:
// engine.cc (the schedule: start, reductions to a fixed point, final checks,
// accepting steps) and engine_speculation.cc (judging: the memo, judgements
// on threads, the speculation chain that runs ahead of the replay, the
// lookahead into the next reduction). Internal to minifier/; the public
// entry point is Minify in engine.h.
//
// Tested by minifier/engine_test.cc.
#ifndef REPROKIT_MINIFIER_ENGINE_STATE_H_
#define REPROKIT_MINIFIER_ENGINE_STATE_H_

#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "minifier/engine.h"
#include "minifier/reduction.h"
#include "minifier/scratch_store.h"
#include "minifier/search.h"

namespace rk::minifier::engine_internal {

using compiler::HostTensor;

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

}  // namespace rk::minifier::engine_internal

#endif  // REPROKIT_MINIFIER_ENGINE_STATE_H_
