#include "compiler/backend/executable.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/json.h"

namespace rk::compiler {

Json PhaseTimings::ToJson() const {
  Json json = Json::MakeObject();
  for (const auto& [key, ms] : {std::pair<const char*, double>{"passes_ms", passes_ms},
                                {"fusion_ms", fusion_ms},
                                {"kernel_ir_ms", kernel_ir_ms},
                                {"llvm_ir_ms", llvm_ir_ms},
                                {"optimize_ms", optimize_ms},
                                {"jit_ms", jit_ms},
                                {"codegen_ms", codegen_ms},
                                {"link_ms", link_ms}}) {
    json.Set(key, Json(std::round(ms * 1000) / 1000));  // microseconds are noise
  }
  json.Set("cached_kernels", Json(cached_kernels));
  json.Set("disk_cached_kernels", Json(disk_cached_kernels));
  json.Set("compile_threads", Json(compile_threads));
  json.Set("total_ms", Json(std::round(total_ms() * 1000) / 1000));
  if (!assembler.empty()) {
    json.Set("assembler", Json(assembler));
    json.Set("assemble_ms", Json(std::round(assemble_ms * 1000) / 1000));
    json.Set("load_ms", Json(std::round(load_ms * 1000) / 1000));
    json.Set("context_ms", Json(std::round(context_ms * 1000) / 1000));
    json.Set("context_wait_ms", Json(std::round(context_wait_ms * 1000) / 1000));
    if (!assembler_note.empty()) json.Set("assembler_note", Json(assembler_note));
  }
  if (!kernels.empty()) {
    Json list = Json::MakeArray();
    for (const KernelCompileTiming& k : SlowestKernels(kernels.size())) {
      Json entry = Json::MakeObject();
      entry.Set("name", Json(k.name));
      entry.Set("source", Json(k.source));
      entry.Set("emit_ms", Json(std::round(k.emit_ms * 1000) / 1000));
      entry.Set("optimize_ms", Json(std::round(k.optimize_ms * 1000) / 1000));
      entry.Set("codegen_ms", Json(std::round(k.codegen_ms * 1000) / 1000));
      list.push_back(std::move(entry));
    }
    json.Set("kernels", std::move(list));
  }
  return json;
}

std::vector<KernelCompileTiming> PhaseTimings::SlowestKernels(size_t count) const {
  std::vector<KernelCompileTiming> sorted = kernels;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const KernelCompileTiming& a, const KernelCompileTiming& b) {
                     return a.ms() > b.ms();
                   });
  if (sorted.size() > count) sorted.resize(count);
  return sorted;
}

Executable::Executable(std::vector<TensorType> input_types,
                       std::unique_ptr<const CompiledProgram> program, CompileReport report)
    : input_types_(std::move(input_types)),
      program_(std::move(program)),
      report_(std::move(report)) {}

absl::StatusOr<std::vector<HostTensor>> Executable::Run(
    absl::Span<const HostTensor> inputs) const {
  if (inputs.size() != input_types_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", input_types_.size(), " inputs, got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].type() != input_types_[i] || !inputs[i].valid()) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, ": expected ",
                                                     input_types_[i].ToString(), ", got ",
                                                     inputs[i].type().ToString()));
    }
  }
  return program_->Run(inputs);
}

}  // namespace rk::compiler
