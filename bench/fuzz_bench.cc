// Fuzzer throughput, end to end per graph on one core: generate, compile,
// run (twice, the nondeterminism check), reference interpreter (native and
// fp64), judge - with the split of time - for 10- and 30-node graphs; once in
// process (repro::JudgeInProcess) and once through the isolated oracle the
// campaigns use (one worker subprocess).
//
//   bazel run -c opt //bench:fuzz_bench [-- GRAPHS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/generator/generator.h"
#include "compiler/options/compile_options.h"
#include "repro/oracle/oracle.h"

namespace rk::fuzz {
namespace {

using compiler::generator::Generate;
using compiler::generator::GeneratedGraph;
using compiler::generator::GeneratorOptions;

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Totals {
  int graphs = 0;
  double generate = 0, compile = 0, run = 0, reference = 0, wall = 0;
  std::map<std::string, int> verdicts;
};

void Print(const char* label, int nodes, const Totals& t) {
  const double other = t.wall - t.generate - t.compile - t.run - t.reference;
  std::printf("%-10s nodes=%-3d %5d graphs  %7.1f graphs/s  per graph %.2f ms: generate %.2f, "
              "compile %.2f, run %.2f, reference %.2f, other %.2f  verdicts:",
              label, nodes, t.graphs, t.graphs / t.wall, 1e3 * t.wall / t.graphs,
              1e3 * t.generate / t.graphs, 1e3 * t.compile / t.graphs, 1e3 * t.run / t.graphs,
              1e3 * t.reference / t.graphs, 1e3 * other / t.graphs);
  for (const auto& [k, n] : t.verdicts) std::printf(" %s=%d", k.c_str(), n);
  std::printf("\n");
}

// With `oracle`: every graph, isolated. Without: in process, only the graphs
// whose isolated verdict in `screen` was no crash or timeout (a compiler
// crash would take the benchmark down).
Totals Measure(int nodes, int graphs, repro::Oracle* oracle, std::vector<bool>* screen) {
  GeneratorOptions options;
  options.nodes = nodes;
  Totals t;
  screen->resize(graphs, true);
  const compiler::CompileOptions compile;
  repro::OracleOptions judge;
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < graphs; ++i) {
    const Clock::time_point t0 = Clock::now();
    if (oracle == nullptr && !(*screen)[i]) continue;
    absl::StatusOr<GeneratedGraph> g = Generate(1000 + i, options);
    if (!g.ok()) continue;
    const std::vector<compiler::HostTensor> inputs = g->MakeInputs(1000 + i);
    t.generate += Since(t0);
    absl::StatusOr<repro::Verdict> v =
        oracle != nullptr ? oracle->Judge(g->graph, inputs, compile)
                          : repro::JudgeInProcess(g->graph, inputs, compile, judge);
    if (!v.ok()) continue;
    if (oracle != nullptr) {
      (*screen)[i] = v->kind != repro::VerdictKind::kCrash && v->kind != repro::VerdictKind::kTimeout;
    }
    ++t.graphs;
    ++t.verdicts[std::string(repro::VerdictKindName(v->kind))];
    t.compile += v->compile_seconds;
    t.run += v->run_seconds;
    t.reference += v->reference_seconds;
  }
  t.wall = Since(start);
  return t;
}

}  // namespace
}  // namespace rk::fuzz

int main(int argc, char** argv) {
  const int graphs = argc > 1 ? std::atoi(argv[1]) : 400;
  rk::repro::Oracle::Config config;
  config.workers = 1;
  absl::StatusOr<std::unique_ptr<rk::repro::Oracle>> oracle = rk::repro::Oracle::Create(config);
  if (!oracle.ok()) {
    std::fprintf(stderr, "oracle: %s\n", std::string(oracle.status().message()).c_str());
    return 1;
  }
  for (int nodes : {10, 30}) {
    const int n = nodes == 10 ? graphs : graphs / 2;
    std::vector<bool> screen;
    rk::fuzz::Print("isolated", nodes, rk::fuzz::Measure(nodes, n, oracle->get(), &screen));
    rk::fuzz::Print("in-process", nodes, rk::fuzz::Measure(nodes, n, nullptr, &screen));
  }
  return 0;
}
