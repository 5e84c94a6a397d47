#include "compiler/cuda/runtime/device_warm_up.h"

#include <chrono>

namespace rk::compiler::cuda {
namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

void DeviceWarmUp::Start() {
  if (started_) return;
  started_ = true;
  thread_ = std::thread([this] {
    const auto start = std::chrono::steady_clock::now();
    (void)CudaDevice::Get();  // remembered by Get; Wait asks again
    context_ms_ = MsSince(start);
  });
}

void DeviceWarmUp::Join() {
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<CudaDevice*> DeviceWarmUp::Wait() {
  const auto start = std::chrono::steady_clock::now();
  if (thread_.joinable()) {
    thread_.join();
    wait_ms_ = MsSince(start);
    return CudaDevice::Get();
  }
  if (started_) return CudaDevice::Get();  // joined before
  started_ = true;
  absl::StatusOr<CudaDevice*> device = CudaDevice::Get();
  context_ms_ = wait_ms_ = MsSince(start);
  return device;
}

}  // namespace rk::compiler::cuda
