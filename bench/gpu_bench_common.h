// What gpu_bench's modes share (bench/gpu_bench.cc): a benchmark case, the
// matmul graph, the device, compiling a case and writing the JSON rows.
#ifndef REPROKIT_BENCH_GPU_BENCH_COMMON_H_
#define REPROKIT_BENCH_GPU_BENCH_COMMON_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/backend/executable.h"
#include "compiler/cuda/runtime/cuda_driver.h"
#include "compiler/ir/graph.h"

namespace rk::compiler::gpu_bench {

struct Case {
  std::string name;
  std::string dtype;
  std::string text;
  double flops = 0;  // matmul only
  bool fast_math = false;
  bool tf32 = false;
};

// a @ b of t[m, k] and t[k, n].
std::string Matmul(const std::string& t, int64_t m, int64_t k, int64_t n);
double MsSince(std::chrono::steady_clock::time_point start);
// The GPU, or null after saying why there is none.
cuda::CudaDevice* DeviceOrSay();
// A case's graph, or nullopt after printing why it does not parse.
std::optional<Graph> ParseCase(const Case& c);
absl::StatusOr<Executable> CompileCase(const Case& c, const Graph& graph);
// Closes `json` ("[" and objects) and writes it to `path` (nothing when
// empty). False when the file cannot be written.
bool WriteJsonArray(std::string& json, const std::string& path);

}  // namespace rk::compiler::gpu_bench

#endif  // REPROKIT_BENCH_GPU_BENCH_COMMON_H_
