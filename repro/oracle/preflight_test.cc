#include "repro/oracle/preflight.h"

#include <fstream>
#include <sstream>
#include <string>

#include "compiler/support/cuda_probe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using ::testing::HasSubstr;

// First in this file, before anything loads the driver here: the check of a
// cuda request probes in a child, so this process (the parent of the oracle's
// forked workers) never initializes CUDA.
TEST(PreflightTest, CheckingACudaRequestLeavesTheDriverOutOfThisProcess) {
  compiler::CompileOptions options;
  options.device = "cuda";
  (void)Preflight(options);
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  EXPECT_EQ(text.str().find("libcuda.so"), std::string::npos);
}

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
