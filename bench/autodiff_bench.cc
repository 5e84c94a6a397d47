// Autodiff benchmarks: joint-graph construction time (BuildJointGraph, every
// float input marked) and CPU compile latency of the forward graph against
// its joint graph, for examples/*.rk and random generator graphs of 100 and
// 1000 compute nodes (main float dtype only, seeds chosen to have float
// inputs). Compiles are cold: the in-process kernel cache is emptied before
// each and the on-disk one is off (REPROKIT_KERNEL_CACHE=off). Wall
// times are medians.
//
//   bazel run -c opt //bench:autodiff_bench -- [EXAMPLES_DIR]
//   bazel run -c opt //bench:autodiff_bench -- phases N   (one cold compile each of
//       the N-node random forward and joint graphs, split by phase; with
//       AUTODIFF_BENCH_WRITE=FILE, the forward graph goes to FILE, for
//       `reprokit show --joint FILE --grad all-float` and `reprokit compile`)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "compiler/autodiff/joint_graph.h"
#include "compiler/cpu/codegen/kernel_cache.h"
#include "compiler/driver/compile.h"
#include "compiler/generator/generator.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"

namespace rk::compiler {
namespace {

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

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

double ColdCompileMs(const Graph& graph, int reps) {
  CompileOptions options;
  options.device = "cpu";
  return MedianMs(reps, [&] {
    cpu::KernelCache::Global().Clear();
    absl::StatusOr<Executable> exe = Compile(graph, options);
    if (!exe.ok()) {
      std::fprintf(stderr, "compile failed: %s\n", std::string(exe.status().message()).c_str());
      std::exit(1);
    }
  });
}

void Row(const std::string& name, const Graph& forward, int reps) {
  const autodiff::GradSpec spec = autodiff::GradSpecAllFloat(forward);
  absl::StatusOr<autodiff::JointGraph> joint = autodiff::BuildJointGraph(forward, spec);
  if (!joint.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(joint.status().message()).c_str());
    std::exit(1);
  }
  const double build = MedianMs(reps * 4, [&] {
    absl::StatusOr<autodiff::JointGraph> j = autodiff::BuildJointGraph(forward, spec);
    if (!j.ok()) std::exit(1);
  });
  const double fwd = ColdCompileMs(forward, reps);
  const double jnt = ColdCompileMs(joint->graph, reps);
  std::printf("| %s | %d | %zu | %d | %.3f | %.1f | %.1f | %.2fx |\n", name.c_str(),
              forward.num_nodes(), spec.inputs.size(), joint->graph.num_nodes(), build, fwd, jnt,
              jnt / fwd);
  std::fflush(stdout);
}

// A generator graph of about `nodes` compute nodes with at least one float input.
Graph RandomForward(int nodes) {
  generator::GeneratorOptions options;
  options.nodes = nodes;
  options.mixed_dtypes = false;
  for (uint64_t seed = 1;; ++seed) {
    absl::StatusOr<generator::GeneratedGraph> gen = generator::Generate(seed, options);
    if (gen.ok() && !autodiff::GradSpecAllFloat(gen->graph).inputs.empty()) return gen->graph;
  }
}

// Where one cold compile of the forward and of the joint graph spends its time.
void Phases(int nodes) {
  const Graph forward = RandomForward(nodes);
  absl::StatusOr<autodiff::JointGraph> joint =
      autodiff::BuildJointGraph(forward, autodiff::GradSpecAllFloat(forward));
  if (!joint.ok()) std::exit(1);
  if (const char* file = std::getenv("AUTODIFF_BENCH_WRITE"); file != nullptr) {
    std::ofstream(file) << PrintInline(forward);
  }
  std::printf("| graph | nodes | kernels | passes | fusion | kernel IR | LLVM IR | O2 | codegen | "
              "link | total (ms) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  const Graph* graphs[] = {&forward, &joint->graph};
  for (const Graph* g : graphs) {
    cpu::KernelCache::Global().Clear();
    CompileOptions options;
    options.device = "cpu";
    absl::StatusOr<Executable> exe = Compile(*g, options);
    if (!exe.ok()) std::exit(1);
    const PhaseTimings& t = exe->timings();
    std::printf("| %s | %d | %zu | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n",
                g == &forward ? "forward" : "joint", g->num_nodes(),
                exe->fusion_groups().size(), t.passes_ms, t.fusion_ms, t.kernel_ir_ms,
                t.llvm_ir_ms, t.optimize_ms, t.codegen_ms, t.link_ms, t.total_ms());
    std::fflush(stdout);
  }
}

}  // namespace
}  // namespace rk::compiler

int main(int argc, char** argv) {
  using namespace rk::compiler;
  // Cold compiles: no kernel from the on-disk object cache either (a user's
  // REPROKIT_KERNEL_CACHE setting wins).
  setenv("REPROKIT_KERNEL_CACHE", "off", /*overwrite=*/0);
  if (argc > 2 && std::string(argv[1]) == "phases") {
    Phases(std::atoi(argv[2]));
    return 0;
  }
  std::string dir = argc > 1 ? argv[1] : "examples";
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY"); ws != nullptr && argc <= 1) {
    dir = std::string(ws) + "/examples";
  }
  std::printf("| graph | forward nodes | marked inputs | joint nodes | build joint (ms) | "
              "compile forward (ms) | compile joint (ms) | joint / forward |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".rk") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    absl::StatusOr<Graph> g = ParseFile(path.string());
    if (!g.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), std::string(g.status().message()).c_str());
      return 2;
    }
    Row(path.filename().string(), *g, 5);
  }
  Row("random, 100 nodes", RandomForward(100), 5);
  Row("random, 1000 nodes", RandomForward(1000), 3);
  return 0;
}
