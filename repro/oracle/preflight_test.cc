#include "repro/oracle/preflight.h"

#include "compiler/support/cuda_probe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using ::testing::HasSubstr;

TEST(PreflightTest, FaultTypoIsBadInput) {
  compiler::CompileOptions options;
  options.faults = {"relu:bogus"};
  absl::Status s = Preflight(options);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("kind 'bogus' does not apply to 'relu'"));
  options.faults = {"nosuchop:accuracy"};
  EXPECT_THAT(Preflight(options).message(), HasSubstr("unknown target 'nosuchop'"));
  options.faults = {"relu:accuracy"};
  EXPECT_TRUE(Preflight(options).ok());
}

TEST(PreflightTest, CudaWithoutAGpuIsUnavailable) {
  compiler::CompileOptions options;
  options.device = "cuda";
  absl::Status s = Preflight(options);
  if (compiler::ProbeCuda().usable) {
    EXPECT_TRUE(s.ok()) << s;
  } else {
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(s.message(), HasSubstr("no usable GPU"));
  }
  options.device = "cpu";
  EXPECT_TRUE(Preflight(options).ok());
}

}  // namespace
}  // namespace rk::repro
