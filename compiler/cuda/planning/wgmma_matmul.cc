#include "compiler/cuda/planning/wgmma_matmul.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace rk::compiler::cuda {

bool WgmmaEnabled() {
  const char* v = std::getenv("REPROKIT_WGMMA");
  if (v == nullptr || *v == 0) return kWgmmaByDefault;
  return std::strcmp(v, "0") != 0;
}

std::string WgmmaArch(const std::string& arch) {
  return arch == "sm_90" && WgmmaEnabled() ? "sm_90a" : arch;
}

bool HasWgmmaMatmul(const kernel::Program& program, const std::vector<KernelShape>& shapes,
                    bool tf32) {
  for (size_t k = 0; k < shapes.size() && k < program.kernels.size(); ++k) {
    if (shapes[k].form != KernelForm::kMatmul) continue;
    const std::optional<MmaPlan> plan =
        PlanMmaMatmul(program, program.kernels[k], shapes[k].matmul, tf32);
    if (plan && PlanWgmmaMatmul(*plan, shapes[k].matmul)) return true;
  }
  return false;
}

std::optional<WgmmaTiling> WgmmaTilingFromEnv() {
  const char* v = std::getenv("REPROKIT_WGMMA_TILE");
  if (v == nullptr || *v == 0) return std::nullopt;
  WgmmaTiling t;
  for (absl::string_view item : absl::StrSplit(v, ',', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    int value = 0;
    if (!absl::SimpleAtoi(kv.second, &value)) return std::nullopt;
    if (kv.first == "m" && (value == 64 || value == 128)) {
      t.tile_m = value;
    } else if (kv.first == "n" && (value == 64 || value == 128 || value == 256)) {
      t.tile_n = value;
    } else if (kv.first == "stages" && value >= 2 && value <= 8) {
      t.stages = value;
    } else if (kv.first == "pending" && (value == 0 || value == 1)) {
      t.pending = value;
    } else if (kv.first == "ws" && (value == 0 || value == 1)) {
      t.ws = value == 1;
    } else if (kv.first == "tma" && (value == 0 || value == 1)) {
      t.tma = value == 1;
    } else {
      return std::nullopt;
    }
  }
  if (t.tma) t.ws = true;  // TMA loads come from the producer warpgroup
  // The copies must run at least one tile ahead, and the ring must fit the
  // 227 KiB a block may opt in to.
  // With ws, the consumers' registers share the file with a producer
  // warpgroup: N up to 128, or 256 with TMA (ptxas fits 128 x 256 with TMA
  // in 154 registers a thread, under the 168 that 384 threads may have; no
  // setmaxnreg, whose .inc waits forever where the pool falls short).
  if ((!t.ws && t.stages - 1 - t.pending < 1) || t.shared_bytes() > 227 * 1024) return std::nullopt;
  if (t.ws && t.tile_n > 128 && !(t.tma && t.tile_m == 128)) return std::nullopt;
  return t;
}

namespace {

// The tiles chosen by size, largest first (planning/wgmma_matmul.h): what
// `gpu_bench --matmul` measures decides them. H200, bf16 4096^3: 128 x 256 in
// 4 stages with a group pending 696 TFLOP/s, 128 x 128 in 3 stages 597.
constexpr WgmmaTiling kBySize[] = {
    {/*tile_m=*/128, /*tile_n=*/256, /*stages=*/4, /*pending=*/1, /*ws=*/false},
    {/*tile_m=*/128, /*tile_n=*/128, /*stages=*/3, /*pending=*/0, /*ws=*/false},
    {/*tile_m=*/128, /*tile_n=*/64, /*stages=*/4, /*pending=*/0, /*ws=*/false},
    {/*tile_m=*/64, /*tile_n=*/64, /*stages=*/4, /*pending=*/0, /*ws=*/false},
};

}  // namespace

std::optional<WgmmaTiling> PlanWgmmaMatmul(const MmaPlan& plan, const MatmulPattern& mm) {
  if (plan.dtype != DType::kF16 && plan.dtype != DType::kBF16) return std::nullopt;
  if (std::optional<WgmmaTiling> forced = WgmmaTilingFromEnv()) return forced;
  for (const WgmmaTiling& t : kBySize) {
    const int64_t blocks = ((mm.m + t.tile_m - 1) / t.tile_m) *
                           ((mm.n + t.tile_n - 1) / t.tile_n) * std::max<int64_t>(mm.batch, 1);
    if (blocks >= kWgmmaTargetBlocks) return t;
  }
  return kBySize[std::size(kBySize) - 1];
}

}  // namespace rk::compiler::cuda
