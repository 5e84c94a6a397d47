#include "compiler/cuda/planning/wgmma_matmul.h"

#include <cstdlib>
#include <cstring>

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

WgmmaTiling WgmmaTilingFromEnv() {
  WgmmaTiling t;
  const char* v = std::getenv("REPROKIT_WGMMA_TILE");
  if (v == nullptr) return t;
  WgmmaTiling parsed = t;
  for (absl::string_view item : absl::StrSplit(v, ',', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    int value = 0;
    if (!absl::SimpleAtoi(kv.second, &value)) return t;
    if (kv.first == "n" && (value == 128 || value == 256)) {
      parsed.tile_n = value;
    } else if (kv.first == "stages" && value >= 2 && value <= 8) {
      parsed.stages = value;
    } else if (kv.first == "pending" && (value == 0 || value == 1)) {
      parsed.pending = value;
    } else {
      return t;
    }
  }
  // The copies must run at least one tile ahead, and the ring must fit the
  // 227 KiB a block may opt in to.
  if (parsed.stages - 1 - parsed.pending < 1 || parsed.shared_bytes() > 227 * 1024) return t;
  return parsed;
}

std::optional<WgmmaTiling> PlanWgmmaMatmul(const MmaPlan& plan) {
  if (plan.dtype != DType::kF16 && plan.dtype != DType::kBF16) return std::nullopt;
  return WgmmaTilingFromEnv();
}

}  // namespace rk::compiler::cuda
