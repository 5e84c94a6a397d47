// What a minimization did, for the progress line, `--json` and the bundle's
// "minimization" record.
//
// Tested by minifier/engine_test.cc.
#ifndef REPROKIT_MINIFIER_STATS_H_
#define REPROKIT_MINIFIER_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/json.h"
#include "minifier/candidate.h"
#include "minifier/recorded_values.h"

namespace rk::minifier {

struct ReductionStats {
  std::string name;
  int64_t runs = 0;          // times the reduction was planned
  int64_t candidates = 0;    // candidates built
  int64_t accepted = 0;
  int64_t oracle_calls = 0;
  double seconds = 0;
};

// One point of a minimization's progress: after `oracle_calls` calls the
// current best had `nodes` compute nodes.
struct ProgressPoint {
  int64_t oracle_calls = 0;
  int64_t nodes = 0;
  double seconds = 0;
};

struct MinifyStats {
  int64_t oracle_calls = 0;        // Interestingness::Judge calls issued (final checks included)
  // Calls whose answer a search consumed (at once, or later from the memo).
  // With -j 1 it equals oracle_calls; with -j N the difference is the
  // speculation that was never needed.
  int64_t oracle_calls_used = 0;
  int64_t cache_hits = 0;          // candidates answered from the memo
  int64_t rejected_drifts = 0;     // failed with another signature
  int64_t invalid_candidates = 0;  // rejected by construction or Verify, never tested
  int64_t not_smaller = 0;         // valid but not strictly simpler, never tested
  int64_t cannot_match = 0;        // lacks what the signature names, never tested
  int64_t accepted_steps = 0;
  // Recorded intermediates (recorded_values.h), summed over the candidates
  // whose values were recorded: values put into the run's store, read back,
  // answered from the cache, and the most held in memory at once.
  ValueCacheCounters values;
  std::vector<ReductionStats> reductions;  // schedule order
  // The start, then one point per accepted step (the report's progress chart;
  // repro.json "minimization.history").
  std::vector<ProgressPoint> history;
  // SHA-256 chained over the memo keys of the accepted candidates, in order
  // (hex; empty before the first): equal for two runs iff they accepted the
  // same sequence, as every -j must.
  std::string accepted_sequence;
  // The signature the current best fails with (the expected one, or for
  // accuracy failures possibly re-anchored upstream: oracle_interestingness.h).
  std::string signature;
  Score start_score;
  Score final_score;
  double seconds = 0;
  bool one_minimal = false;   // final single-node check found nothing removable
  int reproduce_runs = 0;     // final repetitions that reproduced
  int reproduce_attempts = 0;
  bool flaky = false;         // a final repetition did not reproduce
  bool interrupted = false;   // stopped by a signal
  bool timed_out = false;     // stopped by the time limit

  ReductionStats& For(const std::string& name);
  Json ToJson() const;
  // "1204 -> 3 nodes, 140 oracle calls (31 cached), 4.1 s".
  std::string Summary() const;
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_STATS_H_
