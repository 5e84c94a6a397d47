// OracleFailureTest: the FailureTest of a real minimization, judged by
// repro::Oracle (isolated workers, so a crashing compiler is a verdict, not a
// dead minimizer). Interesting iff the verdict's signature equals the
// expected one; another failure signature is drift. Test is thread-safe.
//
// Tested by minifier/minify_bundle_test.cc.
#ifndef REPROKIT_MINIFIER_ORACLE_FAILURE_TEST_H_
#define REPROKIT_MINIFIER_ORACLE_FAILURE_TEST_H_

#include <utility>

#include "compiler/driver/compile_options.h"
#include "minifier/failure_test.h"
#include "repro/oracle/oracle.h"
#include "repro/oracle/signature.h"

namespace rk::minifier {

class OracleFailureTest : public FailureTest {
 public:
  // `oracle` is not owned and must outlive this object.
  OracleFailureTest(repro::Oracle* oracle, compiler::CompileOptions options,
                    repro::Signature expected)
      : oracle_(oracle), options_(std::move(options)), expected_(std::move(expected)) {}

  absl::StatusOr<TestResult> Test(const Candidate& candidate) override;

 private:
  repro::Oracle* oracle_;
  compiler::CompileOptions options_;
  repro::Signature expected_;
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_ORACLE_FAILURE_TEST_H_
