// gpu_bench --matmul: the matmul forms side by side (bench/gpu_bench_matmul.h).
#include "bench/gpu_bench_matmul.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/gpu_bench_common.h"
#include "compiler/cuda/cuda_backend.h"
#include "compiler/cuda/runtime/cuda_program.h"

namespace rk::compiler::gpu_bench {
namespace {

// x @ w^T with w stored [n, k]: a linear layer's matmul.
std::string LinearMatmul(const std::string& t, int64_t m, int64_t k, int64_t n) {
  return absl::StrCat("graph @linear(%x: ", t, "[", m, ",", k, "], %w: ", t, "[", n, ",", k,
                      "]) {\n  %t = transpose(%w) {perm=[1,0]} : ", t, "[", k, ",", n,
                      "]\n  %y = matmul(%x, %t) : ", t, "[", m, ",", n, "]\n  return %y\n}");
}

// One compile and timing of `c` under REPROKIT_WGMMA=`wgmma` and
// REPROKIT_WGMMA_TILE=`tile`: kernel ms and the outputs.
struct FormRun {
  double ms = 0;
  std::vector<HostTensor> outputs;
  bool wgmma_in_ptx = false;
};

absl::StatusOr<FormRun> RunForm(const Case& c, const Graph& graph,
                                const std::vector<HostTensor>& inputs, const char* wgmma,
                                const std::string& tile) {
  setenv("REPROKIT_WGMMA", wgmma, 1);
  setenv("REPROKIT_WGMMA_TILE", tile.c_str(), 1);
  absl::StatusOr<Executable> exe = CompileCase(c, graph);
  if (!exe.ok()) return exe.status();
  const cuda::CudaProgram* program = cuda::AsCudaProgram(*exe);
  FormRun run;
  run.wgmma_in_ptx = program->ptx().ptx.find("wgmma.mma_async") != std::string::npos;
  absl::StatusOr<double> probe = program->TimeKernelsMs(inputs, 1);
  if (!probe.ok()) return probe.status();
  const int iterations = std::clamp(static_cast<int>(300.0 / std::max(*probe, 1e-3)), 3, 200);
  absl::StatusOr<double> ms = program->TimeKernelsMs(inputs, iterations);
  if (!ms.ok()) return ms.status();
  run.ms = *ms;
  absl::StatusOr<std::vector<HostTensor>> outputs = exe->Run(inputs);
  if (!outputs.ok()) return outputs.status();
  run.outputs = *std::move(outputs);
  return run;
}

// max |a - b| / max |b| over the first output.
double RelativeDifference(const HostTensor& a, const HostTensor& b) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < b.num_elements(); ++i) {
    diff = std::max(diff, std::abs(a.GetDouble(i) - b.GetDouble(i)));
    scale = std::max(scale, std::abs(b.GetDouble(i)));
  }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace

const char* const kSweptTiles =
    "m=128,n=128,stages=3,pending=0;m=128,n=128,stages=4,pending=1;"
    "m=128,n=128,stages=5,pending=1;m=128,n=256,stages=3,pending=1;"
    "m=128,n=256,stages=4,pending=1;m=128,n=256,stages=4,pending=0;"
    "m=128,n=128,stages=4,pending=1,ws=1;m=128,n=128,stages=5,pending=1,ws=1;"
    "m=128,n=128,stages=4,pending=1,tma=1;m=128,n=128,stages=5,pending=1,tma=1;"
    "m=128,n=128,stages=6,pending=1,tma=1;m=128,n=256,stages=4,pending=1,tma=1;"
    "m=128,n=256,stages=3,pending=1,tma=1";

int MatmulForms(const std::vector<std::string>& swept, const std::string& json_path) {
  cuda::CudaDevice* device = DeviceOrSay();
  if (device == nullptr) return 1;
  std::printf("device: %s (%s, %d SMs)\n", device->info().name.c_str(),
              device->info().arch().c_str(), device->info().sm_count);
  std::vector<Case> cases;
  for (const char* t : {"bf16", "f16"}) {
    cases.push_back({"matmul", t, Matmul(t, 4096, 4096, 4096), 2.0 * 4096 * 4096 * 4096});
    // DistilBERT (128 tokens), DeiT-Tiny (197 tokens), ResNet-18's fc, and a
    // large batch of tokens through a 4096-wide layer.
    for (const std::array<int64_t, 3>& mkn :
         std::vector<std::array<int64_t, 3>>{{128, 768, 768}, {128, 768, 3072}, {128, 3072, 768},
                                             {197, 192, 576}, {197, 192, 768}, {197, 768, 192},
                                             {1, 512, 1000}, {8192, 4096, 4096}}) {
      cases.push_back({"linear", t, LinearMatmul(t, mkn[0], mkn[1], mkn[2]),
                       2.0 * mkn[0] * mkn[1] * mkn[2]});
    }
  }
  std::printf("%-7s %-5s %-16s %10s  %-36s %10s %8s %10s\n", "case", "dtype", "m,k,n",
              "mma.sync", "wgmma tile", "wgmma", "ratio", "rel.diff");
  // Each case's graph, inputs and mma.sync run, made once.
  struct Prepared {
    Graph graph;
    std::vector<HostTensor> inputs;
    std::string mkn;
    FormRun base;
    double base_tflops = 0;
  };
  std::vector<std::optional<Prepared>> prepared(cases.size());
  std::string json = "[";
  int failures = 0;
  auto run_tile = [&](size_t index, const std::string& tile) {
    const Case& c = cases[index];
    if (!prepared[index]) {
      std::optional<Graph> graph = ParseCase(c);
      if (!graph) return false;
      Prepared p{*std::move(graph), {}, "", {}, 0};
      for (NodeId id : p.graph.inputs()) {
        p.inputs.push_back(HostTensor::Random(p.graph.type(id), 17 + id.value));
      }
      const Shape& a = p.graph.type(p.graph.inputs()[0]).shape;
      const Shape& w = p.graph.type(p.graph.inputs()[1]).shape;
      const int64_t n = c.name == "linear" ? w.dim(0) : w.dim(1);
      p.mkn = absl::StrCat(a.dim(0), ",", a.dim(1), ",", n);
      absl::StatusOr<FormRun> base = RunForm(c, p.graph, p.inputs, "0", "");
      if (!base.ok()) {
        std::fprintf(stderr, "%s %s: %s\n", c.name.c_str(), p.mkn.c_str(),
                     base.status().ToString().c_str());
        return false;
      }
      p.base = *std::move(base);
      p.base_tflops = c.flops / (p.base.ms * 1e9);
      prepared[index] = std::move(p);
    }
    const Prepared& p = *prepared[index];
    const char* shown = tile.empty() ? "by size" : tile.c_str();
    absl::StatusOr<FormRun> run = RunForm(c, p.graph, p.inputs, "1", tile);
    if (!run.ok()) {
      std::printf("%-7s %-5s %-16s %10.1f  %-36s failed: %s\n", c.name.c_str(), c.dtype.c_str(),
                  p.mkn.c_str(), p.base_tflops, shown, run.status().ToString().c_str());
      ++failures;
      return true;
    }
    const double tflops = c.flops / (run->ms * 1e9);
    const double diff = RelativeDifference(run->outputs[0], p.base.outputs[0]);
    const bool bad = diff > 0.05 || !run->wgmma_in_ptx;
    if (bad) ++failures;
    std::printf("%-7s %-5s %-16s %10.1f  %-36s %10.1f %7.2fx %10.2e%s\n", c.name.c_str(),
                c.dtype.c_str(), p.mkn.c_str(), p.base_tflops, shown, tflops,
                tflops / p.base_tflops, diff,
                !run->wgmma_in_ptx ? "  (no wgmma in the PTX)" : bad ? "  MISMATCH" : "");
    std::fflush(stdout);
    absl::StrAppendFormat(&json,
                          "%s\n {\"case\": \"%s\", \"dtype\": \"%s\", \"mkn\": \"%s\", "
                          "\"mma_sync_tflops\": %.2f, \"wgmma_tile\": \"%s\", "
                          "\"wgmma_tflops\": %.2f, \"relative_difference\": %.3e}",
                          json.size() > 1 ? "," : "", c.name, c.dtype, p.mkn, p.base_tflops, tile,
                          tflops, diff);
    return true;
  };
  // Every case in the tile chosen by size, then the large ones in each swept
  // tile, the warp-specialized (ws, tma) ones last: a stuck mbarrier wait
  // traps, which ends the process's CUDA context.
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!run_tile(i, "")) return 1;
  }
  for (const bool experimental : {false, true}) {
    for (size_t i = 0; i < cases.size(); ++i) {
      if (cases[i].flops < 2.0 * 4096 * 4096 * 4096) continue;
      for (const std::string& tile : swept) {
        const bool ws = absl::StrContains(tile, "ws=1") || absl::StrContains(tile, "tma=1");
        if (ws == experimental && !run_tile(i, tile)) return 1;
      }
    }
  }
  unsetenv("REPROKIT_WGMMA");
  unsetenv("REPROKIT_WGMMA_TILE");
  if (!WriteJsonArray(json, json_path)) return 1;
  return failures == 0 ? 0 : 1;
}

}  // namespace rk::compiler::gpu_bench
