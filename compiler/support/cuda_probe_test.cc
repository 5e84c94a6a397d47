#include "compiler/support/cuda_probe.h"

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

TEST(CudaProbeTest, EitherUsableOrSaysWhy) {
  CudaProbe probe = ProbeCuda();
  if (probe.usable) {
    EXPECT_GT(probe.device_count, 0);
    EXPECT_FALSE(probe.device_name.empty());
    EXPECT_TRUE(probe.reason.empty());
  } else {
    EXPECT_FALSE(probe.reason.empty());
  }
}

}  // namespace
}  // namespace rk::compiler
