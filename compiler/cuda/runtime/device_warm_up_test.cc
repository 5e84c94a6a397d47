// DeviceWarmUp and CudaDevice::Describe, with or without a GPU: the warm-up
// gives the same device (or the same Unavailable status) as CudaDevice::Get,
// reports its time, and never outlives its owner.
#include "compiler/cuda/runtime/device_warm_up.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "compiler/cuda/runtime/cuda_driver.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

// Each child starts a warm-up and leaves at once, with the thread possibly
// still in cuInit: the owner's way out joins it, so the child exits cleanly
// (a thread left running raced the static destructors before).
TEST(DeviceWarmUpTest, AnOwnerThatLeavesAtOnceJoinsTheThread) {
  for (int i = 0; i < 8; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      {
        DeviceWarmUp warm_up;
        warm_up.Start();
        warm_up.Start();  // a second Start does nothing
      }
      std::exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child " << i << " ended with status " << status;
  }
}

TEST(DeviceWarmUpTest, WaitGivesWhatGetGivesAndTimesIt) {
  DeviceWarmUp warm_up;
  EXPECT_FALSE(warm_up.started());
  warm_up.Start();
  EXPECT_TRUE(warm_up.started());
  absl::StatusOr<CudaDevice*> device = warm_up.Wait();
  absl::StatusOr<CudaDevice*> direct = CudaDevice::Get();
  ASSERT_EQ(device.ok(), direct.ok()) << device.status() << " / " << direct.status();
  if (device.ok()) {
    EXPECT_EQ(*device, *direct);
  } else {
    EXPECT_EQ(device.status(), direct.status());
    EXPECT_TRUE(absl::IsUnavailable(device.status())) << device.status();
  }
  EXPECT_GE(warm_up.context_ms(), 0);
  EXPECT_GE(warm_up.wait_ms(), 0);
  EXPECT_LE(warm_up.wait_ms(), warm_up.context_ms() + 50);  // a wait is for the thread's work
  const double waited = warm_up.wait_ms();
  EXPECT_EQ(warm_up.Wait().ok(), device.ok());  // later calls return at once
  EXPECT_EQ(warm_up.wait_ms(), waited);
}

TEST(DeviceWarmUpTest, WaitWithoutStartMakesTheContextThere) {
  DeviceWarmUp warm_up;
  absl::StatusOr<CudaDevice*> device = warm_up.Wait();
  EXPECT_TRUE(warm_up.started());
  EXPECT_EQ(device.ok(), CudaDevice::Get().ok());
  EXPECT_EQ(warm_up.wait_ms(), warm_up.context_ms());
}

TEST(DeviceWarmUpTest, DescribeAgreesWithGet) {
  absl::StatusOr<DeviceInfo> info = CudaDevice::Describe();
  absl::StatusOr<CudaDevice*> device = CudaDevice::Get();
  // Once Describe has answered, DescribeIfKnown gives the same without waiting.
  std::optional<absl::StatusOr<DeviceInfo>> known = CudaDevice::DescribeIfKnown();
  ASSERT_TRUE(known.has_value());
  ASSERT_EQ(known->ok(), info.ok());
  if (info.ok()) EXPECT_EQ((*known)->arch(), info->arch());
  // Without a driver or device both fail, Unavailable; with a driver but no
  // usable context only Get does.
  if (!info.ok()) EXPECT_FALSE(device.ok());
  if (!device.ok()) {
    EXPECT_TRUE(absl::IsUnavailable(device.status())) << device.status();
    if (!info.ok()) EXPECT_TRUE(absl::IsUnavailable(info.status())) << info.status();
    return;
  }
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->name, (*device)->info().name);
  EXPECT_EQ(info->arch(), (*device)->info().arch());
  EXPECT_EQ(info->sm_count, (*device)->info().sm_count);
  EXPECT_GT(info->cc_major, 0);
}

}  // namespace
}  // namespace rk::compiler::cuda
