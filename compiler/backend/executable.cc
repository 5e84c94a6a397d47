#include "compiler/backend/executable.h"

#include "absl/strings/str_format.h"

namespace rk::compiler {

std::string PhaseTimings::ToJson() const {
  return absl::StrFormat(
      "{\"passes_ms\": %.3f, \"fusion_ms\": %.3f, \"kernel_ir_ms\": %.3f, \"llvm_ir_ms\": %.3f, "
      "\"optimize_ms\": %.3f, \"jit_ms\": %.3f, \"codegen_ms\": %.3f, \"link_ms\": %.3f, "
      "\"cached_kernels\": %d, \"total_ms\": %.3f}",
      passes_ms, fusion_ms, kernel_ir_ms, llvm_ir_ms, optimize_ms, jit_ms, codegen_ms, link_ms,
      cached_kernels, total_ms());
}

Executable::Executable(std::vector<TensorType> input_types,
                       std::unique_ptr<const CompiledProgram> program, CompileReport report)
    : input_types_(std::move(input_types)),
      program_(std::move(program)),
      report_(std::move(report)) {}

absl::StatusOr<std::vector<HostTensor>> Executable::Run(
    absl::Span<const HostTensor> inputs) const {
  return program_->Run(input_types_, inputs);
}

}  // namespace rk::compiler
