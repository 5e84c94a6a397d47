// MinifyBundle: `reprokit minify` as a library. Loads a bundle, checks that it
// reproduces its expected signature, minimizes it with the real oracle
// (isolated workers, -j of them), checkpoints the best bundle so far to the
// output directory after every accepted step, and writes the final bundle.
//
// The output bundle holds only the blobs its graph and inputs need; its
// repro.json records provenance (the original bundle's hash and directory)
// and the minimization stats (engine.h's MinifyStats, plus "complete"). A
// checkpoint is such a bundle with "complete": false; `resume` continues
// from it when its parent hash matches the input bundle.
//
// Errors: the input's load errors (InvalidArgument, NotFound, DataLoss);
// InvalidArgument when its expected verdict is not a failure;
// FailedPrecondition when it does not reproduce that failure at all.
//
// Tested by minifier/minify_bundle_test.cc.
#ifndef REPROKIT_MINIFIER_MINIFY_BUNDLE_H_
#define REPROKIT_MINIFIER_MINIFY_BUNDLE_H_

#include <atomic>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "minifier/engine.h"
#include "minifier/stats.h"

namespace rk::minifier {

struct MinifyBundleOptions {
  std::string input_dir;
  std::string output_dir;
  int jobs = 1;
  bool resume = false;
  double time_limit_seconds = 0;
  // Seconds per judgement before it counts as a hang; <= 0: the bundle's
  // captured timeout, else the oracle's default.
  double timeout_seconds = 0;
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const ProgressEvent&)> on_progress;
  // Judge in worker subprocesses (crashes become verdicts). Off only for a
  // trusted compiler in tests.
  bool isolate = true;
  // Non-empty: the interestingness test is this program (ScriptInterestingness:
  // exit 0 = still interesting), not the bundle's expected signature; each run
  // gets `test_timeout_seconds` (0: none).
  std::string test_script;
  // Non-empty: judge with this backend instead of the bundle's (compile
  // option backend; "builtin" for the built-in compiler).
  std::string backend;
  double test_timeout_seconds = 0;
  // Accuracy failures with an external backend: run the fp64 recompile (the
  // miscompile/precision split) for every failing candidate, not only for
  // the result (oracle_interestingness.h, "Deferred classification").
  bool classify_each = false;
  // Start from partitions of the graph (window_scan's 8 windows of
  // consecutive nodes, then keep_cone), the schedule external backends get,
  // also for the built-in compiler: each probe judges a small part of the
  // graph, and with -j the windows are judged side by side. Another search
  // than the default one, so another accepted sequence (the same for every
  // -j). docs/MINIFIER.md, "Parallel search".
  bool partitions = false;
  // When the result's one judgement with the fp64 recompile shows drift
  // (another subkind than expected, e.g. an upstream matmul's precision
  // failure taken for the planted miscompile), search again from the start
  // with that judgement on every failing candidate.
  bool rerun_on_drift = true;
};

struct MinifyBundleResult {
  MinifyStats stats;
  // The failure kept: the expected signature, or for an accuracy failure
  // the one it was anchored to upstream (oracle_interestingness.h).
  std::string signature;
  std::string original_hash;   // BundleHash of the input
  std::string minimized_hash;  // BundleHash of the output
  bool resumed = false;
  bool complete = false;       // not cut short by a signal or the time limit
  // The subkind was assumed while minimizing and the result judged once with
  // the fp64 recompile; non-empty drift: that judgement disagreed.
  bool classified = false;
  std::string classification_drift;
  // Non-empty: drift was seen and the search was run again with the check on
  // every candidate (rerun_on_drift); the drift it corrected.
  std::string drift_rerun;
  // The input bundle's capture deferred the miscompile/precision check and
  // the output records the subkind this minimization found on its graph.
  bool precision_check_resolved = false;
};

absl::StatusOr<MinifyBundleResult> MinifyBundle(const MinifyBundleOptions& options);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_MINIFY_BUNDLE_H_
