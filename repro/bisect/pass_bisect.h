// Pass-application bisection (`reprokit bisect --passes`, docs/WORKFLOWS.md,
// "Bisecting a regression in git history"): finds the first optional pass
// application whose inclusion makes a compilation fail with its signature, by
// binary search on CompileOptions::max_pass_applications (cf. LLVM's
// -opt-bisect-limit).
//
// Needs a FailureProbe whose target fails (probe.IsTargetFailure) with its own
// options. Steps:
//   1. one uncapped compile, in this process and without planted faults
//      (WithoutFaults: faults do not change which applications are requested),
//      counts the applications N and keeps the log that names each of them.
//      When the failure is a crash or hang and no fault is planted, compiling
//      here is unsafe: the upper bound is then found by doubling the cap
//      (1, 2, 4, ...) with the oracle instead, still O(log N) judgements;
//   2. cap 0 (no optional application at all): still failing with the
//      signature means the bug is not in an optional pass but in required
//      lowering, fusion-free code generation or the runtime;
//   3. binary search keeps "cap lo does not fail with the signature, cap hi
//      does" until hi = lo + 1 = k: application #k is the first bad one. A
//      cap that fails differently counts as not failing. The search assumes
//      the failure is monotone in the cap; both caps k-1 and k are judged, so
//      the reported pair is always a real flip.
//   4. with dump_dir set, compiles caps k-1 and k with CompileOptions::dump_dir
//      (<dump_dir>/cap_<k-1>/, <dump_dir>/cap_<k>/) and writes
//      <dump_dir>/diff.txt: a line diff of the optimized graphs, fusion
//      groups and kernel IR.
//
// Tested by repro/bisect/pass_bisect_test.cc.
#ifndef REPROKIT_REPRO_BISECT_PASS_BISECT_H_
#define REPROKIT_REPRO_BISECT_PASS_BISECT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/json.h"
#include "compiler/passes/pass_manager.h"
#include "repro/bisect/failure_probe.h"
#include "repro/oracle/verdict.h"

namespace rk::repro {

struct PassBisectOptions {
  std::string dump_dir;  // "" writes no dumps
};

// One judged cap, in the order the search tried them.
struct CapProbe {
  int64_t cap = 0;
  bool target_failure = false;
  std::string verdict;  // signature, or "pass"
};

// One dumped file compared between the caps.
struct DumpDiff {
  std::string file;  // e.g. "fusion.txt"
  int added = 0;
  int removed = 0;
  std::string diff;  // unified line diff; "" when equal or missing
};

struct PassBisectResult {
  // N: optional applications an uncapped compile requests; -1 when unknown
  // (the upper bound came from doubling the cap).
  int64_t total_applications = -1;
  // The failure persists with every optional application refused (cap 0).
  bool persists_without_passes = false;
  // The first bad application (k) and what it did; number 0 when
  // persists_without_passes. `application.detail` is empty when unknown.
  compiler::PassApplication application{0, "", ""};
  Verdict last_good;  // cap k-1
  Verdict first_bad;  // cap k
  std::vector<CapProbe> probes;
  int64_t judgements = 0;         // oracle calls by this bisection
  int64_t in_process_compiles = 0;
  std::string dump_dir;           // where the dumps went ("" when none)
  std::vector<DumpDiff> diffs;
  std::vector<std::string> notes;

  std::string ToText() const;
  Json ToJson() const;
};

absl::StatusOr<PassBisectResult> BisectPassApplications(FailureProbe& probe,
                                                        const PassBisectOptions& options);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BISECT_PASS_BISECT_H_
