// GPU kernel and compile-latency benchmark for device=cuda (docs/GPU.md).
//
// For each case (fused elementwise chain, softmax, layer_norm, matmul on
// realistic shapes, f32 and bf16; long reductions that take two passes,
// compiler/cuda/planning/split_rows.h: a full sum and argmax of 64M f32, row sums of
// [64, 1M] f32): compile latency (cold: first compile of
// the graph in this process; warm: the same graph again, the driver module
// cached), GPU time per execution with the inputs resident (events around
// back-to-back executions), the achieved bandwidth over the fewest bytes the
// graph must move (inputs read once, outputs written once) and that as a
// share of the device-to-device copy bandwidth (cuMemcpyDtoD, read + write)
// measured in the same run; TFLOP/s for matmul.
//
// Compile phases (cold): graph passes + fusion + kernel IR, LLVM IR, O2
// (libdevice linked), then "ptx+load": NVPTX code generation plus the
// driver's load, which compiles PTX to SASS; the warm compile's codegen
// is the PTX part alone (the driver module is cached by PTX text), so the
// difference is the driver's JIT.
//
// Cold start (--cold-start): each case's first compile in a fresh process
// (this binary again, --first-compile N) with an empty driver JIT cache
// (CUDA_CACHE_PATH set to a new directory) and an empty kernel cache (PTX
// modules and cubins: REPROKIT_KERNEL_CACHE, a new directory; the assembler
// is $REPROKIT_CUDA_ASSEMBLER's, compiler/cuda/runtime/ptx_assembler.h,
// its PTX->SASS and load times in their own columns), timed from the compile call to
// a loaded program with the device context already made, plus chains of 10,
// 100 and 1,000 elementwise ops on f32[1024,1024] (add, mul, tanh, sub,
// sigmoid in turn), and examples/attention.rk (many kernels, compiled as a
// module each on several threads) when run from the repository root.
// bench/torch_compare.py --cold-start measures Inductor the same way.
//
// Matmul forms (--matmul): bf16/f16 matmuls at 4096^3 and at the zoo
// models' linear-layer shapes (x @ w^T, w stored [N, K]), each compiled on
// mma.sync (REPROKIT_WGMMA=0) and on wgmma (REPROKIT_WGMMA=1: every shape in
// the tile chosen by size, then the two large shapes in each tile of
// --wgmma-tiles, default kSweptTiles, the warp-specialized ones (ws=1,
// tma=1) last; compiler/cuda/planning/wgmma_matmul.h), TFLOP/s of each
// and the largest difference of a wgmma result from the mma.sync one on the
// same inputs, relative to the largest mma.sync value (both sum in f32, so
// it stays near the output dtype's rounding; above 0.05 fails the run).
// The plain run's matmul cases follow $REPROKIT_WGMMA as set.
//
//   gpu_bench [--quick] [--json FILE]
//   gpu_bench --cold-start [--repeat N] [--quick] [--json FILE]   (N runs a case, median; 3)
//   gpu_bench --matmul [--wgmma-tiles "T1;T2;..."] [--json FILE]
//                      (T: "m=128,n=256,stages=4,pending=1", any subset)
// Exits 1 with the reason when there is no GPU.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_replace.h"
#include "base/json.h"
#include "base/subprocess.h"
#include "compiler/cuda/cuda_backend.h"
#include "compiler/cuda/runtime/cuda_driver.h"
#include "compiler/cuda/runtime/cuda_program.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/parser.h"
#include "bench/gpu_bench_common.h"
#include "bench/gpu_bench_matmul.h"

namespace rk::compiler {
namespace gpu_bench {

std::string Matmul(const std::string& t, int64_t m, int64_t k, int64_t n) {
  return absl::StrCat("graph @matmul(%a: ", t, "[", m, ",", k, "], %b: ", t, "[", k, ",", n,
                      "]) {\n  %c = matmul(%a, %b) : ", t, "[", m, ",", n, "]\n  return %c\n}");
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The GPU, or null after saying why there is none.
cuda::CudaDevice* DeviceOrSay() {
  absl::StatusOr<cuda::CudaDevice*> device = cuda::CudaDevice::Get();
  if (device.ok()) return *device;
  std::fprintf(stderr, "gpu_bench: %s\n", std::string(device.status().message()).c_str());
  return nullptr;
}

// A case's graph, or nullopt after printing why it does not parse.
std::optional<Graph> ParseCase(const Case& c) {
  absl::StatusOr<Graph> graph = Parse(c.text);
  if (graph.ok()) return *std::move(graph);
  std::fprintf(stderr, "%s: %s\n", c.name.c_str(), graph.status().ToString().c_str());
  return std::nullopt;
}

absl::StatusOr<Executable> CompileCase(const Case& c, const Graph& graph) {
  CompileOptions options;
  options.device = "cuda";
  options.fast_math = c.fast_math;
  options.tf32 = c.tf32;
  return Compile(graph, options);
}

// Closes `json` ("[" and objects) and writes it to `path` (nothing when
// empty). False when the file cannot be written.
bool WriteJsonArray(std::string& json, const std::string& path) {
  json += "\n]\n";
  if (path.empty()) return true;
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs(json.c_str(), f) >= 0;
  return std::fclose(f) == 0 && ok;
}

}  // namespace gpu_bench

namespace {

using gpu_bench::Case;
using gpu_bench::CompileCase;
using gpu_bench::DeviceOrSay;
using gpu_bench::Matmul;
using gpu_bench::MsSince;
using gpu_bench::ParseCase;
using gpu_bench::WriteJsonArray;

std::string Elementwise(const std::string& t, int64_t rows, int64_t cols) {
  const std::string x = absl::StrCat(t, "[", rows, ",", cols, "]");
  const std::string b = absl::StrCat(t, "[", cols, "]");
  return absl::StrCat("graph @chain(%x: ", x, ", %b: ", b, ") {\n",
                      "  %a = add(%x, %b) : ", x, "\n  %g = gelu(%a) : ", x, "\n",
                      "  %m = mul(%g, %x) : ", x, "\n  %s = sigmoid(%m) : ", x, "\n",
                      "  %y = mul(%s, %a) : ", x, "\n  return %y\n}");
}

std::string Softmax(const std::string& t, int64_t rows, int64_t cols) {
  const std::string x = absl::StrCat(t, "[", rows, ",", cols, "]");
  return absl::StrCat("graph @softmax(%x: ", x, ") {\n  %y = softmax(%x) {axis=1} : ", x,
                      "\n  return %y\n}");
}

std::string LayerNorm(const std::string& t, int64_t rows, int64_t cols) {
  const std::string x = absl::StrCat(t, "[", rows, ",", cols, "]");
  const std::string v = absl::StrCat(t, "[", cols, "]");
  return absl::StrCat("graph @layer_norm(%x: ", x, ", %g: ", v, ", %b: ", v, ") {\n",
                      "  %y = layer_norm(%x, %g, %b) {axis=1, eps=1e-5} : ", x,
                      "\n  return %y\n}");
}


// One reduction of a `t`[dims] input, `attrs` as the graph writes them.
std::string Reduce(const std::string& op, const std::string& t, const std::string& dims,
                   const std::string& attrs, const std::string& out) {
  return absl::StrCat("graph @", op, "(%x: ", t, "[", dims, "]) {\n  %y = ", op, "(%x) {", attrs,
                      "} : ", out, "\n  return %y\n}");
}

// `ops` elementwise ops on f32[1024,1024]: add y, mul y, tanh, sub y,
// sigmoid, in turn (bench/torch_compare.py builds the same chain).
std::string LongChain(int ops) {
  const std::string t = "f32[1024,1024]";
  std::string text =
      absl::StrCat("graph @chain", ops, "(%x: ", t, ", %y: ", t, ") {\n");
  std::string prev = "%x";
  for (int i = 0; i < ops; ++i) {
    static constexpr const char* kForms[] = {"add(%s, %%y)", "mul(%s, %%y)", "tanh(%s)",
                                             "sub(%s, %%y)", "sigmoid(%s)"};
    const std::string value = absl::StrCat("%v", i);
    absl::StrAppend(&text, "  ", value, " = ", absl::StrFormat(kForms[i % 5], prev), " : ", t,
                    "\n");
    prev = value;
  }
  return absl::StrCat(text, "  return ", prev, "\n}");
}


int64_t MinBytes(const Graph& graph) {
  int64_t bytes = 0;
  for (NodeId id : graph.inputs()) bytes += graph.type(id).byte_size();
  for (NodeId id : graph.outputs()) bytes += graph.type(id).byte_size();
  return bytes;
}

absl::StatusOr<double> CopyBandwidthGBs(cuda::CudaDevice* device, size_t bytes) {
  absl::StatusOr<cuda::DeviceBuffer> a = cuda::DeviceBuffer::Create(device, bytes);
  if (!a.ok()) return a.status();
  absl::StatusOr<cuda::DeviceBuffer> b = cuda::DeviceBuffer::Create(device, bytes);
  if (!b.ok()) return b.status();
  if (absl::Status s = device->Fill(a->ptr(), 1, bytes); !s.ok()) return s;
  absl::StatusOr<double> ms =
      device->TimeMs([&] { return device->CopyOnDevice(b->ptr(), a->ptr(), bytes); }, 20);
  if (!ms.ok()) return ms.status();
  return 2.0 * bytes / (*ms * 1e6);
}

std::vector<Case> KernelCases(bool quick) {
  const int64_t rows = quick ? 4096 : 16384;
  const int64_t mm = quick ? 1024 : 4096;
  std::vector<Case> cases;
  for (const char* t : {"f32", "bf16"}) {
    cases.push_back({"elementwise chain", t, Elementwise(t, rows, 4096)});
    cases.push_back({"softmax", t, Softmax(t, rows, 4096)});
    cases.push_back({"layer_norm", t, LayerNorm(t, rows, 4096)});
    cases.push_back({"layer_norm", t, LayerNorm(t, rows * 4, 768)});
    cases.push_back({"matmul", t, Matmul(t, mm, mm, mm), 2.0 * mm * mm * mm});
  }
  cases.push_back({"matmul", "f16", Matmul("f16", mm, mm, mm), 2.0 * mm * mm * mm});
  cases.push_back({"matmul fast_math", "f32", Matmul("f32", mm, mm, mm), 2.0 * mm * mm * mm, true});
  cases.push_back({"matmul tf32", "f32", Matmul("f32", mm, mm, mm), 2.0 * mm * mm * mm, false, true});
  // Few long rows: two passes (compiler/cuda/planning/split_rows.h).
  const std::string n = quick ? "16777216" : "67108864";
  const std::string few_rows = quick ? "64,262144" : "64,1048576";
  const char* all = "axes=[0], keepdim=false";
  cases.push_back({"reduce_sum full", "f32", Reduce("reduce_sum", "f32", n, all, "f32[]")});
  cases.push_back({"reduce_sum rows", "f32",
                   Reduce("reduce_sum", "f32", few_rows, "axes=[1], keepdim=false", "f32[64]")});
  cases.push_back(
      {"argmax full", "f32", Reduce("argmax", "f32", n, "axis=0, keepdim=false", "i64[]")});

  return cases;
}

// The kernel cases, then the long chains (compile latency only).
std::vector<Case> ColdStartCases(bool quick) {
  std::vector<Case> cases = KernelCases(quick);
  for (int ops : {10, 100, 1000}) {
    cases.push_back({absl::StrCat("chain of ", ops, " ops"), "f32", LongChain(ops)});
  }
  // Many kernels (19 launches): the demo's attention block, when run from
  // the repository root.
  std::ifstream attention("examples/attention.rk");
  if (attention) {
    std::stringstream text;
    text << attention.rdbuf();
    cases.push_back({"attention example", "f32", text.str()});
  }
  return cases;
}





// Child of --cold-start: the first compile of case `index` in this process,
// with the device context made first. Prints one JSON object.
int FirstCompile(bool quick, int index) {
  if (DeviceOrSay() == nullptr) return 1;
  const std::vector<Case> cases = ColdStartCases(quick);
  if (index < 0 || index >= static_cast<int>(cases.size())) return 2;
  const Case& c = cases[index];
  const auto start = std::chrono::steady_clock::now();
  std::optional<Graph> graph = ParseCase(c);
  if (!graph) return 1;
  absl::StatusOr<Executable> exe = CompileCase(c, *graph);
  const double ms = MsSince(start);
  if (!exe.ok()) {
    std::fprintf(stderr, "%s: %s\n", c.name.c_str(), exe.status().ToString().c_str());
    return 1;
  }
  std::printf("{\"case\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", \"kernels\": %d, "
              "\"cold_start_ms\": %.2f, \"phases\": %s}\n",
              c.name.c_str(), c.dtype.c_str(),
              graph->type(graph->inputs()[0]).shape.ToString().c_str(), exe->num_kernels(), ms,
              exe->timings().ToJson().Dump().c_str());
  return 0;
}

// The number at `key` in a JSON line, or in its "phases" object (-1 when absent).
double JsonNumber(const std::string& line, const std::string& key) {
  absl::StatusOr<rk::Json> json = rk::ParseJson(line);
  if (!json.ok()) return -1;
  const rk::Json* value = json->Find(key);
  // The compile phases sit in the "phases" object.
  if (const rk::Json* phases = json->Find("phases"); value == nullptr && phases != nullptr) {
    value = phases->Find(key);
  }
  return value != nullptr && value->is_number() ? value->double_value() : -1;
}

// One --first-compile child with an empty driver JIT cache: its JSON line,
// or "" when it failed.
std::string FirstCompileInChild(const std::string& self, size_t index, bool quick) {
  char dir[] = "/tmp/rk_jit_cache_XXXXXX";
  if (mkdtemp(dir) == nullptr) return "";
  std::vector<std::string> argv = {self, "--first-compile", std::to_string(index)};
  if (quick) argv.push_back("--quick");
  rk::SubprocessOptions options;
  options.env = {absl::StrCat("CUDA_CACHE_PATH=", dir),
                 absl::StrCat("REPROKIT_KERNEL_CACHE=", dir, "/kernels")};
  absl::StatusOr<rk::SubprocessResult> run = rk::RunSubprocess(argv, options);
  std::string line = run.ok() && run->ok() ? run->stdout_text : "";
  if (run.ok()) std::fputs(run->stderr_text.c_str(), stderr);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  while (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

int ColdStart(bool quick, int repeat, const std::string& json_path) {
  if (DeviceOrSay() == nullptr) return 1;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return 1;
  self[n] = 0;
  std::printf("first compile in a fresh process, empty driver JIT cache (ms; the run with the "
              "median total of %d)\n%-18s %-5s %-14s %5s %9s %9s %9s %9s %9s %9s %9s %-9s   %s\n",
              repeat, "case", "dtype", "shape", "krnls", "total", "graph", "llvm_ir", "O2",
              "ptx+load", "ptx->sass", "load", "assembler", "all runs");
  std::string json = "[";
  int failures = 0;
  const std::vector<Case> cases = ColdStartCases(quick);
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<std::pair<double, std::string>> runs;
    for (int r = 0; r < repeat; ++r) {
      std::string line = FirstCompileInChild(self, i, quick);
      if (!line.empty()) runs.emplace_back(JsonNumber(line, "cold_start_ms"), std::move(line));
    }
    if (static_cast<int>(runs.size()) != repeat) {
      std::printf("%-18s %-5s failed\n", cases[i].name.c_str(), cases[i].dtype.c_str());
      ++failures;
      continue;
    }
    std::sort(runs.begin(), runs.end());
    const std::string& line = runs[runs.size() / 2].second;
    std::string all;
    for (const auto& run : runs) absl::StrAppendFormat(&all, "%s%.1f", all.empty() ? "" : " ", run.first);
    const size_t shape_at = line.find("\"shape\": \"") + 10;
    const std::string shape = line.substr(shape_at, line.find('"', shape_at) - shape_at);
    const size_t assembler_at = line.find("\"assembler\": \"");
    const std::string assembler =
        assembler_at == std::string::npos
            ? "?"
            : line.substr(assembler_at + 14, line.find('"', assembler_at + 14) - assembler_at - 14);
    std::printf("%-18s %-5s %-14s %5d %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %-9s   %s\n",
                cases[i].name.c_str(),
                cases[i].dtype.c_str(), shape.c_str(), static_cast<int>(JsonNumber(line, "kernels")),
                runs[runs.size() / 2].first,
                JsonNumber(line, "passes_ms") + JsonNumber(line, "fusion_ms") +
                    JsonNumber(line, "kernel_ir_ms"),
                JsonNumber(line, "llvm_ir_ms"), JsonNumber(line, "optimize_ms"),
                JsonNumber(line, "codegen_ms"), JsonNumber(line, "assemble_ms"),
                JsonNumber(line, "load_ms"), assembler.c_str(), all.c_str());
    std::fflush(stdout);
    // The median run's object, with every run's total added.
    absl::StrAppend(&json, json.size() > 1 ? ",\n " : "\n ", line.substr(0, line.size() - 1),
                    ", \"runs_ms\": [", absl::StrReplaceAll(all, {{" ", ", "}}), "]}");
  }
  if (!WriteJsonArray(json, json_path)) return 1;
  return failures == 0 ? 0 : 1;
}

int Run(bool quick, const std::string& json_path) {
  cuda::CudaDevice* device = DeviceOrSay();
  if (device == nullptr) return 1;
  const cuda::DeviceInfo& info = device->info();
  absl::StatusOr<double> copy = CopyBandwidthGBs(device, size_t{1} << 30);
  if (!copy.ok()) {
    std::fprintf(stderr, "gpu_bench: %s\n", copy.status().ToString().c_str());
    return 1;
  }
  std::printf("device: %s (%s, %d SMs, driver %d)\n", info.name.c_str(), info.arch().c_str(),
              info.sm_count, info.driver_version);
  std::printf("cuMemcpyDtoD bandwidth (read + write, 1 GiB): %.0f GB/s\n\n", *copy);

  const std::vector<Case> cases = KernelCases(quick);

  // LLVM's NVPTX target and libdevice load once per process: keep them out
  // of the per-case cold numbers.
  {
    absl::StatusOr<Graph> warm = Parse(Softmax("f32", 4, 64));
    CompileOptions options;
    options.device = "cuda";
    if (warm.ok()) (void)Compile(*warm, options);
  }

  std::string json = "[";
  std::string phases_table;
  std::printf("%-18s %-5s %-14s %4s %9s %9s %9s %8s %8s %8s\n", "case", "dtype", "shape", "lnch",
              "cold_ms", "warm_ms", "kernel_ms", "GB/s", "%copy", "TFLOP/s");
  for (const Case& c : cases) {
    std::optional<Graph> graph = ParseCase(c);
    if (!graph) return 1;
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Executable> exe = CompileCase(c, *graph);
    const double cold_ms = MsSince(start);
    if (!exe.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), exe.status().ToString().c_str());
      return 1;
    }
    start = std::chrono::steady_clock::now();
    absl::StatusOr<Executable> again = CompileCase(c, *graph);
    const double warm_ms = MsSince(start);
    std::vector<HostTensor> inputs;
    for (NodeId id : graph->inputs()) {
      inputs.push_back(HostTensor::Random(graph->type(id), 17 + id.value));
    }
    const cuda::CudaProgram* program = cuda::AsCudaProgram(*exe);
    absl::StatusOr<double> probe = program->TimeKernelsMs(inputs, 1);
    if (!probe.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), probe.status().ToString().c_str());
      return 1;
    }
    const int iterations = std::clamp(static_cast<int>(300.0 / std::max(*probe, 1e-3)), 3, 200);
    absl::StatusOr<double> ms = program->TimeKernelsMs(inputs, iterations);
    if (!ms.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), ms.status().ToString().c_str());
      return 1;
    }
    const double gbs = MinBytes(*graph) / (*ms * 1e6);
    const double tflops = c.flops > 0 ? c.flops / (*ms * 1e9) : 0;
    const std::string shape = graph->type(graph->inputs()[0]).shape.ToString();
    std::printf("%-18s %-5s %-14s %4d %9.1f %9.1f %9.3f %8.0f %7.0f%% %8.2f\n", c.name.c_str(),
                c.dtype.c_str(), shape.c_str(), static_cast<int>(program->ptx().launches.size()), cold_ms,
                again.ok() ? warm_ms : -1.0, *ms, gbs, 100 * gbs / *copy, tflops);
    const PhaseTimings& cold = exe->timings();
    const double warm_codegen = again.ok() ? again->timings().codegen_ms : -1.0;
    absl::StrAppendFormat(&phases_table, "%-18s %-5s %-14s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
                          c.name, c.dtype, shape,
                          cold.passes_ms + cold.fusion_ms + cold.kernel_ir_ms, cold.llvm_ir_ms,
                          cold.optimize_ms, cold.codegen_ms, warm_codegen,
                          cold.codegen_ms - warm_codegen);
    absl::StrAppendFormat(
        &json,
        "%s\n {\"case\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", \"kernels\": %d, \"launches\": %d, "
        "\"cold_compile_ms\": %.2f, \"warm_compile_ms\": %.2f, \"kernel_ms\": %.4f, "
        "\"gb_per_s\": %.1f, \"copy_gb_per_s\": %.1f, \"tflops\": %.3f, \"phases\": %s, "
        "\"warm_phases\": %s}",
        json.size() > 1 ? "," : "", c.name, c.dtype, shape, exe->num_kernels(),
        static_cast<int>(program->ptx().launches.size()), cold_ms, warm_ms,
        *ms, gbs, *copy, tflops, cold.ToJson().Dump(),
        again.ok() ? again->timings().ToJson().Dump() : std::string("null"));
  }
  std::printf("\ncold compile phases, ms (graph = passes + fusion + kernel IR; ptx+load = NVPTX "
              "codegen + driver load; warm ptx = codegen with the module cached; driver JIT = the "
              "difference)\n%-18s %-5s %-14s %9s %9s %9s %9s %9s %9s\n%s",
              "case", "dtype", "shape", "graph", "llvm_ir", "O2", "ptx+load", "warm_ptx",
              "driver", phases_table.c_str());
  return WriteJsonArray(json, json_path) ? 0 : 1;
}

}  // namespace
}  // namespace rk::compiler

int main(int argc, char** argv) {
  bool quick = false;
  bool cold_start = false;
  bool matmul = false;
  std::vector<std::string> tiles = absl::StrSplit(rk::compiler::gpu_bench::kSweptTiles, ';');
  int first_compile = -1;
  int repeat = 3;
  std::string json;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--cold-start") == 0) {
      cold_start = true;
    } else if (std::strcmp(argv[i], "--matmul") == 0) {
      matmul = true;
    } else if (std::strcmp(argv[i], "--wgmma-tiles") == 0 && i + 1 < argc) {
      tiles = absl::StrSplit(argv[++i], ';');
    } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--first-compile") == 0 && i + 1 < argc) {
      first_compile = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: gpu_bench [--quick] [--json FILE]\n"
                   "       gpu_bench --cold-start [--repeat N (3)] [--quick] [--json FILE]\n"
                   "       gpu_bench --matmul [--wgmma-tiles \"T1;T2\"] [--json FILE]\n");
      return 2;
    }
  }
  if (first_compile >= 0) return rk::compiler::FirstCompile(quick, first_compile);
  if (cold_start) return rk::compiler::ColdStart(quick, repeat, json);
  if (matmul) return rk::compiler::gpu_bench::MatmulForms(tiles, json);
  return rk::compiler::Run(quick, json);
}
