// What a repro run means: compares the oracle's verdict with the bundle's
// expected failure signature and turns that into an exit code for the mode
// the runner was started in (docs/WORKFLOWS.md, sections 2 and 3).
//
//   match              test (default)   test (known_failure)   bisect
//   reproduces         1 FAIL           0 PASS                 1 bad
//   does not reproduce 0 PASS           1 FAIL (fixed?)        0 good
//   different failure  1 FAIL           1 FAIL                 125 skip (1 with any_failure)
//   cannot judge       1 FAIL           1 FAIL                 125 skip
//
// "Reproduces" means the same signature; for crashes the same signal is
// enough (frames move when the compiler is edited, which is exactly what a
// bisection does), and for timeouts the kind alone. Nothing here ever yields
// 128+signal: a crash of the compiler is a verdict, and git bisect aborts on
// exit codes above 127.
//
// Tested by repro/emit/outcome_test.cc.
#ifndef REPROKIT_REPRO_EMIT_OUTCOME_H_
#define REPROKIT_REPRO_EMIT_OUTCOME_H_

#include <string>
#include <string_view>

#include "repro/oracle/verdict.h"

namespace rk::repro {

enum class RunnerMode {
  kTest,    // a cc_test: regression (pass = fixed) or known failure (pass = still broken)
  kBisect,  // `bazel run ..._bisect` under `git bisect run`: 0 good, 1 bad, 125 skip
};

enum class ReproMatch {
  kReproduces,       // same failure as recorded
  kNotReproduced,    // the oracle says pass
  kDifferentFailure, // fails, but not the recorded way
  kCannotJudge,      // cannot_judge verdict (e.g. NaN in the fp64 reference)
};

std::string_view ReproMatchName(ReproMatch match);

// `note` (may be null) receives why a near-miss still counts, e.g. "same
// signal, different frames".
ReproMatch CompareWithExpected(const Signature& expected, const Verdict& actual,
                               std::string* note = nullptr);

struct ReproDecision {
  int exit_code = 0;
  std::string headline;  // one line: "FAIL: the recorded failure reproduces"
  std::string advice;    // what to do next; may be empty
};

// `any_failure` (bisect only): any failure counts as bad rather than skip.
// `target` (may be empty): the installed compiler judged, e.g.
// "onnxruntime 1.30.0 (node)"; a known failure's headline names it ("still
// present in ...", "fixed in ...? remove known_failure").
ReproDecision Decide(ReproMatch match, RunnerMode mode, bool known_failure, bool any_failure,
                     const std::string& target = "");

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_EMIT_OUTCOME_H_
