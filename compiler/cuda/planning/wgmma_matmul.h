// Hopper tensor-core matmuls: which tensor-core matmul kernels (mma_matmul.h)
// the NVPTX backend runs on warpgroup MMA (`wgmma.mma_async`, sm_90a only;
// nvptx_wgmma_matmul.cc) instead of `mma.sync`, and with which tile.
//
// A kernel takes the form when its mma plan has f16 or bf16 operands (TF32
// keeps mma.sync) and the module is compiled for sm_90a. The operands
// qualify exactly as for mma.sync (16-byte chunks, both layouts of the right
// operand), so the choice never changes which graphs compile, only their
// code. The form is switched by $REPROKIT_WGMMA: "1" on, "0" off (mma.sync
// everywhere, for A/B runs), unset: kWgmmaByDefault. When it is on, a
// compile for sm_90 with a matmul that takes the form is promoted to sm_90a
// (ptx_compiler.cc: WgmmaArch, HasWgmmaMatmul): the wgmma instructions exist
// only in arch-specific PTX, which runs only on compute capability 9.0, the
// only device an sm_90 compile is meant for.
// $REPROKIT_WGMMA_TILE ("m=128,n=256,stages=4,pending=1", any subset)
// overrides the tile for tuning runs; a malformed value is ignored.
//
// Tested by compiler/cuda/codegen/ptx_wgmma_matmul_test.cc (plans, PTX,
// ptxas for sm_90a), and on a GPU by compiler/tests/cuda_wgmma_matmul_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_PLANNING_WGMMA_MATMUL_H_
#define REPROKIT_COMPILER_CUDA_PLANNING_WGMMA_MATMUL_H_

#include <optional>
#include <string>
#include <vector>

#include "compiler/cuda/planning/mma_matmul.h"

namespace rk::compiler::cuda {

// On: on an H200 the form's GPU tests judged every tile and both right-operand
// layouts against fp64, a 10-minute differential fuzz with it on found
// nothing, and its results equal mma.sync's at every benchmarked shape
// (docs/BENCHMARKS.md, "GPU kernels against Inductor").
inline constexpr bool kWgmmaByDefault = true;

// $REPROKIT_WGMMA, else kWgmmaByDefault.
bool WgmmaEnabled();

// The arch a module is compiled for: sm_90a in place of sm_90 when wgmma is
// enabled, else `arch`.
std::string WgmmaArch(const std::string& arch);

// Whether a kernel of `program` (shapes from AnalyzeKernel, one a kernel)
// takes the wgmma form where it is enabled: a compile promotes sm_90 to
// sm_90a only then, so programs without such a matmul keep their PTX.
bool HasWgmmaMatmul(const kernel::Program& program, const std::vector<KernelShape>& shapes,
                    bool tf32);

// A block's tile: tile_m / 64 consumer warpgroups of m64 rows each (tile_m x
// tile_n), a k tile of 64 elements (one 128-byte swizzle row), `stages` of
// them in a ring of dynamic shared memory.
struct WgmmaTiling {
  static constexpr int kTileK = 64;  // f16/bf16 elements: 128 bytes
  int tile_m = 128;                  // 64 or 128
  int tile_n = 128;                  // 64, 128 or 256: the wgmma's N
  int stages = 3;
  // wgmma groups left in flight at the end of a k tile (0 or 1); a stage is
  // refilled only once the wgmma that read it is known complete, so the
  // copies run stages - 1 - pending tiles ahead.
  int pending = 0;
  // Warp specialization: one more warpgroup only copies (cp.async), and
  // mbarriers in shared memory hand each stage between it and the consumer
  // warpgroups instead of a block-wide barrier a k tile (tile_n <= 128).
  bool ws = false;
  // With ws: one thread of the producer loads each stage with TMA
  // (cp.async.bulk.tensor from tensor maps the launch passes, which write
  // the same swizzled layouts) where the matmul has no batch and constant
  // operand offsets; else the producer's cp.async.
  bool tma = false;
  int warpgroups() const { return tile_m / 64; }  // consumers
  int threads() const { return 128 * (warpgroups() + (ws ? 1 : 0)); }
  int a_bytes() const { return tile_m * kTileK * 2; }
  int b_bytes() const { return tile_n * kTileK * 2; }
  int stage_bytes() const { return a_bytes() + b_bytes(); }
  // The ring, its mbarriers (ws: a full and an empty one a stage), and
  // 1 KiB to align it to the 1024-byte swizzle pattern.
  int shared_bytes() const { return stages * stage_bytes() + (ws ? 16 * stages : 0) + 1024; }
};

// SMs of the sm_90 parts this is tuned for (H100 / H200 SXM: 132).
inline constexpr int64_t kWgmmaTargetBlocks = 132;

// $REPROKIT_WGMMA_TILE's tile ("m=128,n=256,stages=4,pending=1,ws=0,tma=0", any
// subset, over the defaults above), or nullopt when it is unset, empty or
// malformed.
std::optional<WgmmaTiling> WgmmaTilingFromEnv();

// The tile for a matmul kernel with mma plan `plan` when the form applies
// (f16 or bf16 operands), else nullopt. (The caller checks that the module
// is for sm_90a and wgmma is enabled: CodegenOptions::wgmma.) Without
// $REPROKIT_WGMMA_TILE: 128 x 128 in 3 stages where that gives at least
// kWgmmaTargetBlocks blocks, else 128 x 64, else 64 x 64 (4 stages): small
// matmuls (a linear layer on a few hundred tokens) spread over more SMs.
std::optional<WgmmaTiling> PlanWgmmaMatmul(const MmaPlan& plan, const MatmulPattern& mm);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_PLANNING_WGMMA_MATMUL_H_
