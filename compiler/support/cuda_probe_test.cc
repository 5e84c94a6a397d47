#include "compiler/support/cuda_probe.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

bool DriverMappedHere() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find("libcuda.so") != std::string::npos;
}

// First in this file: nothing before it has loaded the driver here. Where a
// driver exists, the in-process probe below maps it, the child's never does
// (a process that initialized CUDA and then forked workers gave every one of
// them CUDA_ERROR_NOT_INITIALIZED: a whole GPU campaign of compile errors).
TEST(CudaProbeTest, TheProbeInAChildLeavesThisProcessWithoutTheDriver) {
  ASSERT_FALSE(DriverMappedHere());
  const CudaProbe child = ProbeCudaInChild();
  EXPECT_FALSE(DriverMappedHere());
  const CudaProbe here = ProbeCuda();
  EXPECT_EQ(child.usable, here.usable) << child.reason << " / " << here.reason;
  EXPECT_EQ(child.device_count, here.device_count);
  EXPECT_EQ(child.device_name, here.device_name);
  EXPECT_EQ(child.driver_version, here.driver_version);
  if (!child.usable) {
    EXPECT_FALSE(child.reason.empty());
  }
}

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
