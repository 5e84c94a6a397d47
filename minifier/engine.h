// The generic reduction engine: minimizes a failing candidate while it keeps
// failing with the same signature.
//
// Runs the reductions of reductions.def in order, repeatedly, until a whole
// round accepts nothing (a fixed point). For each reduction it asks for a
// plan, drives the plan's search (search.h), and for each proposal builds the
// candidate, drops it if construction or Verify fails (invalid, counted) or
// if its score is not strictly smaller than the current one, counts it as not
// interesting without a call when the Interestingness says it cannot match
// (CanMatch), answers it from the memo when its key was judged before, and
// otherwise asks the Interestingness (interestingness.h). With jobs > 1 it
// speculates: it follows the search as far as `jobs` new judgements (known
// answers used, unknown ones guessed as the answer before), starts each on a
// thread of its own, and replays the answers in proposal order, accepting
// every interesting one until an answer differs from the one assumed; it
// never waits for a judgement no replay needs. The result does not depend on
// `jobs`.
//
// At the fixed point it checks 1-minimality (removing any single compute
// node, feeding its users its recorded value, or any single output, no longer
// fails the same way; anything found is accepted and the rounds resume) and
// checks that the result reproduces `reproduce_runs` times: the judgement
// that accepted it plus reproduce_runs - 1 fresh calls; a miss marks it
// flaky. The fresh calls run side by side when jobs > 1.
//
// Recorded values (what a cut feeds to its new inputs) are computed once per
// candidate that needs them and kept in a content store, read lazily through
// a bounded cache (recorded_values.h). A value that cannot be read back
// (missing or corrupt blob) stops the run with that error.
//
// Needs: `start` fails with the expected signature (checked first:
// FailedPrecondition otherwise). Guarantees: every accepted candidate was
// verified and judged interesting; scores strictly decrease; the run stops
// cleanly (best so far returned) on `stop` or the time limit.
//
// Tested by minifier/engine_test.cc.
#ifndef REPROKIT_MINIFIER_ENGINE_H_
#define REPROKIT_MINIFIER_ENGINE_H_

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "minifier/candidate.h"
#include "minifier/interestingness.h"
#include "minifier/recorded_values.h"
#include "minifier/stats.h"
#include "repro/store/store.h"

namespace rk::minifier {

struct ProgressEvent {
  std::string_view reduction;
  int64_t nodes_now = 0;
  int64_t nodes_start = 0;
  int64_t oracle_calls = 0;
  int64_t cache_hits = 0;
  double elapsed_seconds = 0;
  bool accepted = false;  // this event reports an accepted step
};

struct MinifyOptions {
  int jobs = 1;
  double time_limit_seconds = 0;  // 0: none
  const std::atomic<bool>* stop = nullptr;
  // Record cut values in fp64 (accuracy failures: the cut inputs then carry
  // exact values rather than the native reference's rounding).
  bool fp64_values = false;
  // Where recorded values that do not fit the cache go: null for a scratch
  // store in a fresh temporary directory, made on the first spill and
  // removed when Minify returns (scratch_store.h).
  repro::Store* value_store = nullptr;
  // How many recorded values may stay decoded in memory.
  ValueCacheLimits value_cache;
  int reproduce_runs = 3;
  // Reduction names to run (schedule order is kept); empty: all that are
  // scheduled for the oracle's cost.
  std::vector<std::string> only;
  // Each oracle call costs seconds (an external backend): the schedule's
  // kCostlyOracle reductions run instead of its kCheapOracle ones.
  bool costly_oracle = false;
  // Called after every accepted step (checkpointing).
  std::function<void(const Candidate&, const MinifyStats&)> on_accept;
  std::function<void(const ProgressEvent&)> on_progress;
};

struct MinifyResult {
  Candidate best;
  MinifyStats stats;
};

absl::StatusOr<MinifyResult> Minify(Candidate start, Interestingness& interestingness,
                                    const MinifyOptions& options);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_ENGINE_H_
