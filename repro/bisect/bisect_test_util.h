// Test helpers for bisection: a BisectTarget from graph text and option text,
// with an oracle and the target's verdict. Used by the repro/bisect tests.
#ifndef REPROKIT_REPRO_BISECT_BISECT_TEST_UTIL_H_
#define REPROKIT_REPRO_BISECT_BISECT_TEST_UTIL_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "repro/bisect/failure_probe.h"
#include "repro/oracle/oracle.h"

namespace rk::repro {

struct TestTarget {
  std::unique_ptr<Oracle> oracle;
  BisectTarget target;
  Verdict verdict;  // of target.options; target.signature is its signature
};

// Parses `graph_text`, uses seed-0 inputs and `options_text`, judges once.
// `isolate` runs the oracle in worker processes (needed for crash faults).
absl::StatusOr<std::unique_ptr<TestTarget>> MakeTestTarget(std::string_view graph_text,
                                                           const std::string& options_text,
                                                           bool isolate = false);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BISECT_BISECT_TEST_UTIL_H_
