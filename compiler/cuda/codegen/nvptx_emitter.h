// Kernel IR -> LLVM IR for the NVPTX backend: one `.entry` per kernel taking
// its buffers (reads and writes, sorted) as global pointers and the run
// counter, with the GPU mapping kernel_shape.h chooses (two entries for a row
// reduction split in two passes, split_rows.h, which also take the scratch
// buffer). Values come from the
// x86 backend's ValueEmitter, so both backends compute the same thing (f16 and
// bf16 stored as i16 and computed in f32 unless low_precision). Math calls
// (expf, erf, ...) are left as declarations for ptx_compiler.cc to bind to
// libdevice; the float->int wrap helper is defined here.
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_EMITTER_H_
#define REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_EMITTER_H_

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/cuda/planning/kernel_shape.h"
#include "compiler/kernel/kernel_ir.h"
#include "compiler/support/disk_kernel_cache.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace rk::compiler::cuda {

struct GpuOptions {
  std::string arch = "sm_90";
  bool fast_math = false;
  bool low_precision = false;
  int opt_level = 2;
  // Threads compiling a program's modules, a module each (ptx_compiler.h);
  // 0: CompileThreads (base/parallel_for.h); 1: one module.
  int compile_threads = 0;
  // Where compiled modules are kept across processes (ptx_compiler.h): with
  // one, every unit of emission is a module of its own, named by content and
  // looked up before LLVM runs. Null: no disk cache.
  DiskKernelCache* disk_cache = nullptr;
  // sm_80 and newer: f16/bf16 matmuls on the tensor cores where the kernel
  // allows (planning/mma_matmul.h).
  bool tensor_cores = true;
  // With tensor_cores: f32 matmuls too, in TF32 (mma_matmul.h).
  bool tf32 = false;
  // Called with each module's index and PTX as soon as it exists, on the
  // thread that compiled it, while others may still compile (ptx_compiler.h):
  // the runtime starts assembling it (runtime/assembly_pipeline.h). Must be
  // safe to call from several threads at once. Empty: nothing is called.
  std::function<void(int module, const std::string& ptx)> on_module;
};

// How the runtime launches one kernel.
struct KernelLaunch {
  std::string entry;  // PTX entry name
  KernelForm form = KernelForm::kGridStride;
  int64_t work = 1;   // grid-stride points, rows, or matmul batch
  std::array<uint32_t, 3> block{1, 1, 1};
  // Zero grid x: chosen at launch from the work and the device's SM count.
  std::array<uint32_t, 3> grid{0, 1, 1};
  // Row reductions: rows a block runs at once (warp_rows.h: a warp each), or
  // 1 for a block per row.
  int rows_per_block = 1;
  std::vector<int32_t> buffers;  // program buffers, in parameter order
  // > 0: the entry takes the program's scratch buffer (at least this many
  // bytes) right after `buffers`: a split row reduction's partials
  // (split_rows.h).
  int64_t scratch_bytes = 0;
  int module = 0;  // index of the PTX module holding the entry (ptx_compiler.h)
  // Dynamic shared memory the launch gives each block (the wgmma matmul's
  // ring, planning/wgmma_matmul.h); above 48 KiB the runtime opts the
  // function in first.
  uint32_t dynamic_shared_bytes = 0;
  // The wgmma matmul's TMA operands (planning/wgmma_matmul.h, tma=1): 2-D
  // tensor maps the runtime encodes for each launch (cuTensorMapEncodeTiled,
  // 128-byte swizzle, zero fill outside) and passes by value after the run
  // counter, in this order.
  struct TensorMap {
    int32_t buffer = -1;
    int64_t offset_bytes = 0;  // the matrix's first element in the buffer
    bool bf16 = true;          // else f16
    std::array<uint64_t, 2> dims{};  // elements, the contiguous one first
    uint64_t row_bytes = 0;          // between rows of the contiguous dim
    std::array<uint32_t, 2> box{};   // elements a copy moves, the same order
  };
  std::vector<TensorMap> tensor_maps;
};

inline constexpr int kGridStrideThreads = 256;
// Grid-stride kernels unroll at most this many value operations (kernel IR
// kOp and kCast expressions times points) a thread.
inline constexpr int64_t kMaxUnrolledOps = 256;
inline constexpr int kMatmulTileK = 16;

// What the GPU emits for a program: its own copy with cheap elementwise
// producers recomputed in their consumers (inline_producers.h), each
// kernel's shape, and the units of emission in launch order: a row group
// (row_group.h) or one kernel, each one or two entries. Shapes point into
// `program`, so a plan is neither copied nor moved.
struct NvptxPlan {
  kernel::Program program;
  std::vector<KernelShape> shapes;
  std::vector<std::vector<int>> units;  // kernel indices
};

absl::StatusOr<std::unique_ptr<NvptxPlan>> PlanNvptx(const kernel::Program& program);

// Emits units [first_unit, end_unit) of `plan` into one module, appending
// their launches. Reads the plan only, so modules of one plan can be emitted
// on several threads (each with its own context).
absl::StatusOr<std::unique_ptr<llvm::Module>> EmitNvptxModule(const NvptxPlan& plan,
                                                              size_t first_unit, size_t end_unit,
                                                              const GpuOptions& options,
                                                              llvm::LLVMContext& context,
                                                              std::vector<KernelLaunch>& launches);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_EMITTER_H_
