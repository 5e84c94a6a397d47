// Compiler (CPU) benchmarks: compile latency parse-to-runnable by graph size
// with the split per phase (cold: kernel cache emptied before every compile;
// warm: the same graph again; edit: the graph cut short after the full one was
// compiled, like a minimizer step), fused elementwise throughput against a
// STREAM triad / memcpy baseline measured in the same run, softmax and
// layer_norm rows/s, and matmul GFLOP/s against the reference interpreter.
// Wall times are medians; CPU times (this process) show what load on the
// machine adds.
//
//   bazel run -c opt //bench:compile_bench [latency|throughput|rows|matmul...]
#include <algorithm>
#include <cmath>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/cpu/codegen/kernel_cache.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/reference/interpreter.h"

namespace rk::compiler {
namespace {

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double CpuMs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median wall time of `fn` in ms over `reps` runs.
double MedianMs(int reps, const std::function<void()>& fn) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const double t0 = NowMs();
    fn();
    times.push_back(NowMs() - t0);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// A DAG of `n` elementwise and reduction ops, like the minimizer's inputs.
// `cut` > 0 returns the value `cut` nodes before the last one instead.
std::string RandomGraph(int n, int cut = 0) {
  std::string text = "graph @g(%x: f32[32,64], %y: f32[64]) {\n";
  const char* unary[] = {"exp", "tanh", "relu", "neg", "sigmoid", "abs"};
  const char* binary[] = {"add", "mul", "sub", "maximum"};
  std::vector<std::string> values = {"%x"};
  uint64_t state = 12345;
  auto next = [&]() { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (int i = 0; i < n; ++i) {
    const std::string a = values[(next() >> 33) % values.size()];
    const std::string name = absl::StrCat("%v", i);
    const uint64_t r = (next() >> 33) % 10;
    if (r < 4) {
      absl::StrAppend(&text, name, " = ", unary[r], "(", a, ") : f32[32,64]\n");
    } else if (r < 9) {
      const std::string b = r == 8 ? "%y" : values[(next() >> 33) % values.size()];
      absl::StrAppend(&text, name, " = ", binary[r % 4], "(", a, ", ", b, ") : f32[32,64]\n");
    } else {
      absl::StrAppend(&text, name, "_s = reduce_sum(", a, ") {axes=[1], keepdim=true} : f32[32,1]\n",
                      name, " = sub(", a, ", ", name, "_s) : f32[32,64]\n");
    }
    values.push_back(name);
  }
  absl::StrAppend(&text, "return ", values[values.size() - 1 - cut], "\n}\n");
  return text;
}

struct LatencySample {
  double wall_ms = 0;
  double cpu_ms = 0;
  double parse_ms = 0;
  int kernels = 0;
  int cached = 0;
  PhaseTimings t;
};

LatencySample TimeCompile(const std::string& text) {
  LatencySample sample;
  const double t0 = NowMs(), c0 = CpuMs();
  absl::StatusOr<Graph> graph = Parse(text);
  sample.parse_ms = NowMs() - t0;
  absl::StatusOr<Executable> exe = Compile(*graph, {});
  sample.wall_ms = NowMs() - t0;
  sample.cpu_ms = CpuMs() - c0;
  if (!exe.ok()) {
    std::printf("compile failed: %s\n", std::string(exe.status().message()).c_str());
    return sample;
  }
  sample.kernels = exe->num_kernels();
  sample.cached = exe->timings().cached_kernels;
  sample.t = exe->timings();
  return sample;
}

void CompileLatency() {
  std::printf("\n## Compile latency (parse to runnable), median ms\n\n");
  std::printf("| nodes | kernels | cold wall | cold CPU | parse | passes | fusion | kernel IR | "
              "LLVM IR | O2 | codegen | link | warm wall (CPU) | edit wall (CPU), cached |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  cpu::KernelCache& cache = cpu::KernelCache::Global();
  for (int n : {10, 100, 1000}) {
    const std::string text = RandomGraph(n);
    const int reps = n >= 1000 ? 5 : 15;
    std::vector<LatencySample> cold, warm, edit;
    for (int i = 0; i < reps; ++i) {
      cache.Clear();
      cold.push_back(TimeCompile(text));
      warm.push_back(TimeCompile(text));
      edit.push_back(TimeCompile(RandomGraph(n, 1 + i % 3)));
    }
    auto median = [](const std::vector<LatencySample>& v, auto field) {
      std::vector<double> x;
      for (const LatencySample& s : v) x.push_back(field(s));
      return Median(x);
    };
    auto wall = [](const LatencySample& s) { return s.wall_ms; };
    auto cpu = [](const LatencySample& s) { return s.cpu_ms; };
    std::printf("| %d | %d | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f "
                "| %.2f (%.2f) | %.1f (%.1f), %.0f%% |\n",
                n, cold[0].kernels, median(cold, wall), median(cold, cpu),
                median(cold, [](const LatencySample& s) { return s.parse_ms; }),
                median(cold, [](const LatencySample& s) { return s.t.passes_ms; }),
                median(cold, [](const LatencySample& s) { return s.t.fusion_ms; }),
                median(cold, [](const LatencySample& s) { return s.t.kernel_ir_ms; }),
                median(cold, [](const LatencySample& s) { return s.t.llvm_ir_ms; }),
                median(cold, [](const LatencySample& s) { return s.t.optimize_ms; }),
                median(cold, [](const LatencySample& s) { return s.t.codegen_ms; }),
                median(cold, [](const LatencySample& s) { return s.t.link_ms; }),
                median(warm, wall), median(warm, cpu), median(edit, wall), median(edit, cpu),
                100.0 * median(edit, [](const LatencySample& s) {
                  return s.kernels > 0 ? 1.0 * s.cached / s.kernels : 0.0;
                }));
  }
}

Executable MustCompile(const std::string& text, Graph* graph_out = nullptr,
                       const CompileOptions& options = {}) {
  Graph graph = *Parse(text);
  absl::StatusOr<Executable> exe = Compile(graph, options);
  if (!exe.ok()) std::fprintf(stderr, "%s\n", std::string(exe.status().message()).c_str());
  if (graph_out != nullptr) *graph_out = graph;
  return *std::move(exe);
}

std::vector<HostTensor> Inputs(const Graph& graph) {
  std::vector<HostTensor> inputs;
  for (NodeId id : graph.inputs()) inputs.push_back(HostTensor::Random(graph.type(id), id.value));
  return inputs;
}

std::string ReadText(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return "";
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text;
}

// Compile time (in-process cache emptied, so every kernel compiles; run with
// REPROKIT_KERNEL_CACHE=off to keep the disk cache out too) against run time,
// per graph: what a kernel pipeline costs and buys.
void PipelineCost() {
  std::printf("\n## Compile and run time per graph (in-process cache emptied), median ms\n\n");
  std::printf("| graph | kernels | compile wall | O2 (summed) | codegen (summed) | run |\n");
  std::printf("|---|---|---|---|---|---|\n");
  std::vector<std::pair<std::string, std::string>> graphs;
  for (const char* name : {"layer_norm", "softmax", "mlp", "mixed_bf16", "attention"}) {
    graphs.push_back({name, ReadText(absl::StrCat("examples/", name, ".rk"))});
  }
  graphs.push_back({"random 100", RandomGraph(100)});
  graphs.push_back({"random 1000", RandomGraph(1000)});
  graphs.push_back({"softmax [512,1024]",
                    "graph @g(%x: f32[512,1024]) {\n %y = softmax(%x) {axis=1} : f32[512,1024]\n "
                    "return %y\n}"});
  graphs.push_back({"gelu(x@w) [256,256]",
                    "graph @g(%x: f32[256,256], %w: f32[256,256]) {\n %m = matmul(%x, %w) : "
                    "f32[256,256]\n %y = gelu(%m) : f32[256,256]\n return %y\n}"});
  for (const auto& [name, text] : graphs) {
    if (text.empty()) {
      std::printf("| %s | (run from the repository root) |\n", name.c_str());
      continue;
    }
    std::vector<double> compile, optimize, codegen;
    Graph graph;
    Executable exe = MustCompile(text, &graph);  // warms LLVM up
    for (int i = 0; i < 5; ++i) {
      cpu::KernelCache::Global().Clear();
      LatencySample sample = TimeCompile(text);
      compile.push_back(sample.wall_ms);
      optimize.push_back(sample.t.optimize_ms);
      codegen.push_back(sample.t.codegen_ms);
    }
    std::vector<HostTensor> inputs = Inputs(graph);
    const double run_ms = MedianMs(21, [&] { (void)exe.Run(inputs); });
    std::printf("| %s | %d | %.2f | %.2f | %.2f | %.4f |\n", name.c_str(), exe.num_kernels(),
                Median(compile), Median(optimize), Median(codegen), run_ms);
  }
}

void Throughput() {
  const int64_t n = 1 << 24;  // 16M floats, 64 MiB per array
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 0.0f);
  const double triad_ms = MedianMs(5, [&] {
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + 3.0f * b[i];
  });
  const double copy_ms = MedianMs(5, [&] { std::memcpy(c.data(), a.data(), n * 4); });
  // What Run has to do: the output is a fresh allocation every time.
  const double fresh_ms = MedianMs(5, [&] {
    std::unique_ptr<float[]> out(new float[n]);
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 3.0f * b[i];
    volatile float sink = out[n / 2];
    (void)sink;
  });
  Graph graph;
  Executable exe = MustCompile(absl::StrCat(R"(graph @g(%a: f32[)", n, R"(], %b: f32[)", n, R"(]) {
    %m = mul(%b, %b) : f32[)", n, R"(]
    %s = add(%a, %m) : f32[)", n, R"(]
    %r = relu(%s) : f32[)", n, R"(]
    return %r
  })"), &graph);
  std::vector<HostTensor> inputs = Inputs(graph);
  const double fused_ms = MedianMs(5, [&] { (void)exe.Run(inputs); });
  const double bytes = 3.0 * n * 4;
  std::printf("\n## Fused elementwise throughput (16M f32, 3 arrays moved)\n\n");
  std::printf("| kernel | ms | GB/s | vs triad |\n|---|---|---|---|\n");
  std::printf("| STREAM triad (C++ loop) | %.2f | %.1f | 100%% |\n", triad_ms, bytes / triad_ms / 1e6);
  std::printf("| memcpy (2 arrays) | %.2f | %.1f | |\n", copy_ms, 2.0 * n * 4 / copy_ms / 1e6);
  std::printf("| triad into a fresh output (C++ loop) | %.2f | %.1f | %.0f%% |\n", fresh_ms,
              bytes / fresh_ms / 1e6, 100.0 * triad_ms / fresh_ms);
  std::printf("| fused relu(a + b*b) incl. output alloc | %.2f | %.1f | %.0f%% |\n", fused_ms,
              bytes / fused_ms / 1e6, 100.0 * triad_ms / fused_ms);
}

void RowsPerSecond() {
  std::printf("\n## Softmax / layer_norm rows per second ([4096, 1024] f32)\n\n");
  std::printf("| graph | ms | rows/s |\n|---|---|---|\n");
  for (const char* op : {"softmax", "layer_norm"}) {
    const std::string call = std::string(op) == "softmax"
                                 ? "softmax(%x) {axis=1}"
                                 : "layer_norm(%x, %g, %b) {axis=1, eps=1e-5}";
    Graph graph;
    Executable exe = MustCompile(absl::StrCat(
        "graph @g(%x: f32[4096,1024], %g: f32[1024], %b: f32[1024]) {\n %y = ", call,
        " : f32[4096,1024]\n return %y\n}"), &graph);
    std::vector<HostTensor> inputs = Inputs(graph);
    const double ms = MedianMs(7, [&] { (void)exe.Run(inputs); });
    std::printf("| %s | %.2f | %.3g |\n", op, ms, 4096 / ms * 1e3);
  }
  // The exp inside softmax, alone: compiled (inline, vectorized) against a
  // C++ loop of glibc expf calls (what the kernels called before).
  Graph graph;
  Executable exe = MustCompile(
      "graph @g(%x: f32[4096,1024]) {\n %y = exp(%x) : f32[4096,1024]\n return %y\n}", &graph);
  std::vector<HostTensor> inputs = Inputs(graph);
  const double exp_ms = MedianMs(7, [&] { (void)exe.Run(inputs); });
  const int64_t n = int64_t{4096} * 1024;
  std::vector<float> out(n);
  const float* x = inputs[0].data<float>();
  const double expf_ms = MedianMs(7, [&] {
    for (int64_t i = 0; i < n; ++i) out[i] = expf(x[i]);
    volatile float sink = out[n / 2];
    (void)sink;
  });
  std::printf("| exp (elementwise, compiled) | %.2f | %.3g |\n", exp_ms, 4096 / exp_ms * 1e3);
  std::printf("| expf loop (C++, glibc) | %.2f | %.3g |\n", expf_ms, 4096 / expf_ms * 1e3);
}

void MatmulGflops() {
  std::printf("\n## Matmul GFLOP/s (f32)\n\n| size | compiled | compiled fast_math | reference "
              "interpreter |\n|---|---|---|---|\n");
  CompileOptions fast;
  fast.fast_math = true;
  for (int s : {128, 512, 1024}) {
    const std::string text = absl::StrCat("graph @g(%a: f32[", s, ",", s, "], %b: f32[", s, ",", s,
                                          "]) {\n %c = matmul(%a, %b) : f32[", s, ",", s,
                                          "]\n return %c\n}");
    Graph graph;
    Executable exe = MustCompile(text, &graph);
    Executable exe_fast = MustCompile(text, nullptr, fast);
    std::vector<HostTensor> inputs = Inputs(graph);
    const double flops = 2.0 * s * s * s;
    const double ms = MedianMs(s > 512 ? 3 : 5, [&] { (void)exe.Run(inputs); });
    const double fast_ms = MedianMs(s > 512 ? 3 : 5, [&] { (void)exe_fast.Run(inputs); });
    const double ref_ms = MedianMs(s > 256 ? 1 : 3, [&] { (void)Evaluate(graph, inputs); });
    std::printf("| %d | %.2f | %.2f | %.3f |\n", s, flops / ms / 1e6, flops / fast_ms / 1e6,
                flops / ref_ms / 1e6);
  }
}

}  // namespace
}  // namespace rk::compiler

// With arguments, only the named sections run: latency, throughput, rows,
// matmul, pipeline.
int main(int argc, char** argv) {
  // Cold means compiled: the on-disk kernel cache stays out unless a
  // directory is named (docs/BENCHMARKS.md).
  ::setenv("REPROKIT_KERNEL_CACHE", "off", /*overwrite=*/0);
  auto wanted = [&](const char* name) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], name) == 0) return true;
    }
    return false;
  };
  if (wanted("latency")) rk::compiler::CompileLatency();
  if (wanted("throughput")) rk::compiler::Throughput();
  if (wanted("rows")) rk::compiler::RowsPerSecond();
  if (wanted("matmul")) rk::compiler::MatmulGflops();
  if (wanted("pipeline")) rk::compiler::PipelineCost();
  return 0;
}
