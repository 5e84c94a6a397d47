// Executable: what every backend's Compile returns. It owns the backend's
// compiled program (CompiledProgram, one implementation per backend) and the
// compile's report: the optimized graph, the numbered pass applications,
// fusion groups and phase timings. A backend that does not run reprokit's
// graph passes (an external compiler) leaves the report's pass and fusion
// fields empty.
//
// Executables are movable and may Run concurrently when their program allows
// it (both built-in backends do).
//
// Tested by compiler/driver/compile_test.cc (through both built-in backends).
#ifndef REPROKIT_COMPILER_BACKEND_EXECUTABLE_H_
#define REPROKIT_COMPILER_BACKEND_EXECUTABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

// What compiling one kernel cost a backend that compiles kernel by kernel.
struct KernelCompileTiming {
  std::string name;
  std::string source;  // e.g. "compiled", "memory", "disk" (cpu/codegen/host_compiler.h)
  double emit_ms = 0;
  double optimize_ms = 0;
  double codegen_ms = 0;
  double ms() const { return emit_ms + optimize_ms + codegen_ms; }
};

// Milliseconds per phase (parsing is the caller's). A backend that compiles
// kernels on several threads reports llvm_ir_ms, optimize_ms and codegen_ms
// summed over its threads and the compile's wall time in wall_ms.
struct PhaseTimings {
  double passes_ms = 0;
  double fusion_ms = 0;
  double kernel_ir_ms = 0;
  double llvm_ir_ms = 0;
  double optimize_ms = 0;  // O2
  double jit_ms = 0;       // machine code generation and linking: codegen_ms + link_ms
  double codegen_ms = 0;   // instruction selection, register allocation, MC
  double link_ms = 0;      // JITDylib, object linking, symbol lookup
  double wall_ms = 0;      // 0: the phases ran one after another (total_ms is their sum)
  int cached_kernels = 0;  // kernels reused from earlier compiles (no O2, codegen or link)
  int disk_cached_kernels = 0;  // kernels read from an on-disk cache (linked, not compiled)
  int compile_threads = 1;
  // GPU only, parts of codegen_ms (compiler/cuda/runtime/module_loader.h):
  // PTX -> machine code and its load, and the assembler that made it
  // ("nvjitlink", "ptxas" or "driver"; "" on the CPU: these stay out of the JSON).
  double assemble_ms = 0;
  double load_ms = 0;
  std::string assembler;
  std::string assembler_note;  // why not the assembler asked for, a refused cubin
  // GPU only: the CUDA context's creation, on a thread of its own while LLVM
  // runs (compiler/cuda/runtime/device_warm_up.h), and of codegen_ms the
  // time the compile still waited for it.
  double context_ms = 0;
  double context_wait_ms = 0;
  std::vector<KernelCompileTiming> kernels;  // program order; empty when not reported
  double total_ms() const {
    return wall_ms > 0 ? wall_ms
                       : passes_ms + fusion_ms + kernel_ir_ms + llvm_ir_ms + optimize_ms + jit_ms;
  }
  // The `count` kernels that cost most to compile, most expensive first.
  std::vector<KernelCompileTiming> SlowestKernels(size_t count) const;
  // {"passes_ms": ..., ..., "total_ms": ..., "kernels": [...]}, milliseconds
  // to 3 decimals; "kernels" lists every kernel, most expensive first.
  Json ToJson() const;
};

struct FusionGroupSummary {
  std::string kind;    // "elementwise", "reduction", "matmul", "concat"
  std::string detail;  // e.g. "%41 (reduce_sum) + epilogue %42 (div) <- %40 (exp)"
};

// Everything a compile learned besides the program itself.
struct CompileReport {
  Graph optimized_graph;
  std::vector<PassApplication> pass_log;
  // Optional applications requested (graph passes and fusion): the N that
  // bisection searches over.
  int64_t requested_applications = 0;
  std::vector<FusionGroupSummary> fusion_groups;
  PhaseTimings timings;
  int num_kernels = 0;
};

// A backend's compiled, runnable form of one graph.
class CompiledProgram {
 public:
  virtual ~CompiledProgram() = default;
  // Runs on inputs of exactly the compiled graph's input types (Executable::Run
  // has checked them); one output per graph output.
  virtual absl::StatusOr<std::vector<HostTensor>> Run(
      absl::Span<const HostTensor> inputs) const = 0;
};

class Executable {
 public:
  // `input_types` are the compiled graph's inputs, in order.
  Executable(std::vector<TensorType> input_types, std::unique_ptr<const CompiledProgram> program,
             CompileReport report);
  Executable(Executable&&) noexcept = default;
  Executable& operator=(Executable&&) noexcept = default;

  // Runs on inputs of exactly the graph's input types (InvalidArgument
  // otherwise); one output per graph output.
  absl::StatusOr<std::vector<HostTensor>> Run(absl::Span<const HostTensor> inputs) const;

  const std::vector<PassApplication>& pass_log() const { return report_.pass_log; }
  int64_t requested_applications() const { return report_.requested_applications; }
  const std::vector<FusionGroupSummary>& fusion_groups() const { return report_.fusion_groups; }
  const PhaseTimings& timings() const { return report_.timings; }
  const Graph& optimized_graph() const { return report_.optimized_graph; }
  int num_kernels() const { return report_.num_kernels; }
  // The backend's own program, for backend-specific tools (e.g. the CUDA
  // backend's device-side timing, compiler/cuda/cuda_backend.h).
  const CompiledProgram& program() const { return *program_; }

 private:
  std::vector<TensorType> input_types_;
  std::unique_ptr<const CompiledProgram> program_;
  CompileReport report_;
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_BACKEND_EXECUTABLE_H_
