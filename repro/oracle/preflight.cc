#include "repro/oracle/preflight.h"

#include "absl/strings/str_cat.h"
#include "compiler/options/faults.h"
#include "compiler/support/cuda_probe.h"

namespace rk::repro {

absl::Status CheckFaultSpecs(const compiler::CompileOptions& options) {
  if (options.faults.empty()) return absl::OkStatus();
  absl::StatusOr<compiler::FaultSet> faults = compiler::FaultSet::Parse(options.faults);
  if (!faults.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("faults=: ", faults.status().message()));
  }
  return absl::OkStatus();
}

absl::Status CheckDeviceAvailable(const compiler::CompileOptions& options) {
  if (options.device != "cuda") return absl::OkStatus();
  // In a child: this process is the parent of the oracle's workers, which
  // could not use CUDA had it been initialized here first.
  static const compiler::CudaProbe* probe = new compiler::CudaProbe(compiler::ProbeCudaInChild());
  if (probe->usable) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("device=cuda: no usable GPU here (", probe->reason, "); cannot judge"));
}

absl::Status Preflight(const compiler::CompileOptions& options) {
  if (absl::Status s = CheckFaultSpecs(options); !s.ok()) return s;
  return CheckDeviceAvailable(options);
}

}  // namespace rk::repro
