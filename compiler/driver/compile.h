// Compile: graph -> graph passes -> fusion -> kernel IR -> LLVM IR -> O2 ->
// ORC JIT (x86), and Executable::Run on host tensors. docs/COMPILER.md
// describes every phase.
//
// Flow: PassContext::Create (parses faults) -> RunGraphPipeline -> the
// compile-time faults of every op left in the optimized graph -> PlanFusion
// (each fusion decision is a numbered optional application of "fuse") ->
// BuildProgram -> CompileForHost (per-kernel LLVM modules, the kernel cache,
// O2 and JIT for the kernels not cached). With dump_dir
// set, fusion groups, kernel IR, LLVM IR before and after O2, assembly and
// phase timings (JSON) are written there. device=cuda shares everything up
// to kernel IR, then compiler/gpu/ emits PTX through LLVM's NVPTX backend and
// runs it through the CUDA driver (docs/GPU.md); no driver or GPU: Unavailable.
//
// Executables are movable, own their JIT code and may Run concurrently.
//
// Tested by compiler/driver/compile_test.cc and compile_diff_test.cc.
#ifndef REPROKIT_COMPILER_DRIVER_COMPILE_H_
#define REPROKIT_COMPILER_DRIVER_COMPILE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/driver/compile_options.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

namespace gpu {
class CudaProgram;
}  // namespace gpu

// Milliseconds per phase (parsing is the caller's).
struct PhaseTimings {
  double passes_ms = 0;
  double fusion_ms = 0;
  double kernel_ir_ms = 0;
  double llvm_ir_ms = 0;
  double optimize_ms = 0;  // O2
  double jit_ms = 0;       // machine code generation and linking: codegen_ms + link_ms
  double codegen_ms = 0;   // instruction selection, register allocation, MC
  double link_ms = 0;      // JITDylib, object linking, symbol lookup
  int cached_kernels = 0;  // kernels reused from earlier compiles (no O2, codegen or link)
  double total_ms() const {
    return passes_ms + fusion_ms + kernel_ir_ms + llvm_ir_ms + optimize_ms + jit_ms;
  }
  // {"passes_ms": ..., ..., "total_ms": ...}
  std::string ToJson() const;
};

struct FusionGroupSummary {
  std::string kind;    // "elementwise", "reduction", "matmul", "concat"
  std::string detail;  // e.g. "%41 (reduce_sum) + epilogue %42 (div) <- %40 (exp)"
};

class Executable {
 public:
  Executable(Executable&&) noexcept;
  Executable& operator=(Executable&&) noexcept;
  ~Executable();

  // Runs on inputs of exactly the graph's input types (InvalidArgument
  // otherwise); one output per graph output.
  absl::StatusOr<std::vector<HostTensor>> Run(absl::Span<const HostTensor> inputs) const;

  const std::vector<PassApplication>& pass_log() const;
  // Optional applications requested (graph passes and fusion): the N that
  // bisection searches over.
  int64_t requested_applications() const;
  const std::vector<FusionGroupSummary>& fusion_groups() const;
  const PhaseTimings& timings() const;
  const Graph& optimized_graph() const;
  int num_kernels() const;
  // The loaded GPU program (device=cuda), for device-side timing; null on the CPU.
  const gpu::CudaProgram* cuda_program() const;

  struct Impl;

 private:
  friend absl::StatusOr<Executable> Compile(const Graph& graph, const CompileOptions& options);
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

absl::StatusOr<Executable> Compile(const Graph& graph, const CompileOptions& options);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_DRIVER_COMPILE_H_
