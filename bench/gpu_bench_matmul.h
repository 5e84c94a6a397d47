// gpu_bench --matmul (bench/gpu_bench_matmul.cc): bf16/f16 matmuls at 4096^3
// and at the zoo models' linear-layer shapes on mma.sync and on wgmma, TFLOP/s
// and the wgmma result's difference from mma.sync's.
#ifndef REPROKIT_BENCH_GPU_BENCH_MATMUL_H_
#define REPROKIT_BENCH_GPU_BENCH_MATMUL_H_

#include <string>
#include <vector>

namespace rk::compiler::gpu_bench {

// Tiles tried at the large shapes unless --wgmma-tiles names others
// (REPROKIT_WGMMA_TILE's form, ';' between tiles).
extern const char* const kSweptTiles;

// Runs the forms; 0 when every wgmma result stays within 5% of mma.sync's.
int MatmulForms(const std::vector<std::string>& swept, const std::string& json_path);

}  // namespace rk::compiler::gpu_bench

#endif  // REPROKIT_BENCH_GPU_BENCH_MATMUL_H_
