// Minifier benchmark: planted culprits in random DAGs of 50 to 5,000 nodes.
//
//   minify_bench fake [SEEDS]   zero-cost fake oracle (fails iff the planted
//                               chain is present), k = 1 and k = 2 culprits
//   minify_bench real [SEEDS]   the real oracle (compile + run + fp64, isolated
//                               workers) with relu:accuracy / relu:crash, plus
//                               one accuracy fault planted in each examples/
//                               graph, and three in ops that composites lower
//                               to (known minimum: that op alone); each case
//                               runs with -j 1 and with -j 2
//   minify_bench timed [SEEDS] [N|GRAPH.rk]
//                               what -j buys when judgements do not compete
//                               for cores (a host of many): a fake oracle
//                               that sleeps as long as a real CPU judgement
//                               of the candidate's size takes (1 ms + 0.17 ms
//                               a compute node, measured on the 2-core
//                               machine), relu planted in N-node DAGs
//                               (default 1000); -j 1, 4 and 8: wall time,
//                               calls issued / used, and whether the accepted
//                               sequence and final graph equal -j 1's;
//                               MINIFY_BENCH_WINDOWS=1: the --partitions
//                               schedule (window_scan first)
//   minify_bench grad [SEEDS]   a backward-only fault (vjp:mul:swap_operands)
//                               on the one mul of random DAGs whose inputs are
//                               all marked `grad`: the oracle judges the joint
//                               graph (forward outputs and gradients); known
//                               minimum: that mul alone
//
// Prints one row per (fault, N): cases reaching the known minimum, oracle
// calls (mean / max) against 2*k*log2(N)+20, cache hits, wall time. Real rows
// give -j 1 calls, -j 2 calls issued and -j 2 calls whose answer was used,
// and whether -j 1 and -j 2 ended on the same graph. With
// MINIFY_BENCH_DETAIL=1, per-reduction oracle calls go to stderr.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "minifier/candidate.h"
#include "minifier/engine.h"
#include "minifier/minifier_test_util.h"
#include "minifier/oracle_interestingness.h"
#include "repro/oracle/gradients.h"
#include "repro/oracle/oracle.h"

namespace rk::minifier {
namespace {

using compiler::Op;

struct Row {
  std::string fault;
  int nodes = 0;
  int k = 1;
  int cases = 0, minimal = 0;
  double calls = 0, max_calls = 0, hits = 0, seconds = 0, max_seconds = 0;
  // Real oracle, -j 2: calls issued and calls whose answer was used.
  double calls2 = 0, max_calls2 = 0, used2 = 0, max_used2 = 0, seconds2 = 0, max_seconds2 = 0;
  int same_graph = 0;
};

void PrintDetail(const MinifyStats& stats) {
  if (std::getenv("MINIFY_BENCH_DETAIL") == nullptr) return;
  std::fprintf(stderr, "  calls %lld (used %lld), drifts %lld, cannot match %lld:",
               static_cast<long long>(stats.oracle_calls),
               static_cast<long long>(stats.oracle_calls_used),
               static_cast<long long>(stats.rejected_drifts),
               static_cast<long long>(stats.cannot_match));
  for (const ReductionStats& r : stats.reductions) {
    if (r.oracle_calls == 0 && r.accepted == 0) continue;
    std::fprintf(stderr, " %s=%lld/%lld(%.2fs)", r.name.c_str(),
                 static_cast<long long>(r.oracle_calls), static_cast<long long>(r.accepted),
                 r.seconds);
  }
  std::fprintf(stderr, " reproduce=%d/%d final=%s\n", stats.reproduce_runs,
               stats.reproduce_attempts, stats.final_score.ToString().c_str());
}

void PrintRealHeader() {
  std::printf("| culprit | N | k | known min reached | -j 1 calls mean / max | -j 2 issued mean / max "
              "| -j 2 used mean / max | 2k*log2(N)+20 | -j 1 = -j 2 graph | wall -j 1 mean / max (s) "
              "| wall -j 2 mean / max (s) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
}

void PrintRealRow(const Row& r) {
  std::printf("| %s | %d | %d | %d/%d | %.1f / %.0f | %.1f / %.0f | %.1f / %.0f | %.1f | %d/%d "
              "| %.2f / %.2f | %.2f / %.2f |\n",
              r.fault.c_str(), r.nodes, r.k, r.minimal, r.cases, r.calls / r.cases, r.max_calls,
              r.calls2 / r.cases, r.max_calls2, r.used2 / r.cases, r.max_used2,
              2.0 * r.k * std::log2(r.nodes) + 20, r.same_graph, r.cases, r.seconds / r.cases,
              r.max_seconds, r.seconds2 / r.cases, r.max_seconds2);
  std::fflush(stdout);
}

void PrintHeader() {
  std::printf("| culprit | N | k | known min reached | oracle calls mean / max | 2k*log2(N)+20 "
              "| cache hits mean | wall mean / max (s) |\n|---|---|---|---|---|---|---|---|\n");
}

void PrintRow(const Row& r) {
  std::printf("| %s | %d | %d | %d/%d | %.1f / %.0f | %.1f | %.1f | %.3f / %.3f |\n",
              r.fault.c_str(), r.nodes, r.k, r.minimal, r.cases, r.calls / r.cases, r.max_calls,
              2.0 * r.k * std::log2(r.nodes) + 20, r.hits / r.cases, r.seconds / r.cases,
              r.max_seconds);
  std::fflush(stdout);
}

void Record(Row& row, const MinifyResult& result, double seconds, bool minimal) {
  ++row.cases;
  row.minimal += minimal;
  row.calls += result.stats.oracle_calls;
  row.max_calls = std::max<double>(row.max_calls, result.stats.oracle_calls);
  row.hits += result.stats.cache_hits;
  row.seconds += seconds;
  row.max_seconds = std::max(row.max_seconds, seconds);
}

void RunFake(int seeds) {
  PrintHeader();
  const std::vector<std::vector<Op>> culprits = {{Op::kRelu}, {Op::kExp, Op::kRelu}};
  for (const std::vector<Op>& chain : culprits) {
    for (int n : {50, 200, 1000, 5000}) {
      Row row{chain.size() == 1 ? "relu" : "exp->relu", n, static_cast<int>(chain.size())};
      for (int seed = 1; seed <= seeds; ++seed) {
        Candidate start = RandomDag({.seed = static_cast<uint64_t>(seed), .nodes = n,
                                     .planted = chain});
        FunctionInterestingness interestingness(
            [&chain](const Candidate& c) { return HasChain(c.graph, chain) ? "fail" : "pass"; },
            "fail");
        absl::Time t0 = absl::Now();
        absl::StatusOr<MinifyResult> result = Minify(start, interestingness, MinifyOptions());
        double seconds = absl::ToDoubleSeconds(absl::Now() - t0);
        if (!result.ok()) continue;
        PrintDetail(result->stats);
        bool minimal = result->stats.final_score.compute_nodes() == row.k &&
                       HasChain(result->best.graph, chain);
        Record(row, *result, seconds, minimal);
      }
      PrintRow(row);
    }
  }
}

// A CPU judgement of the fx_minifier_compare DAGs on the 2-core machine took
// about 1 ms + 0.17 ms per compute node (warm kernel cache: compile, two
// runs, native and fp64 references): 0.17 s at 1,000 nodes, 0.09 s at 500.
double JudgeSeconds(const Candidate& c) {
  return 0.001 + 0.00017 * static_cast<double>(CountComputeNodes(c.graph));
}

// `graph_file`: that graph (its seeded inputs) instead of random DAGs, e.g.
// bench/fx_minifier_compare.py --dry's N1000_s1.rk (its relu at N/2).
void RunTimed(int seeds, int n, const std::string& graph_file) {
  std::printf("| seed | N | -j | wall (s) | speedup | calls issued / used | same sequence, graph "
              "as -j 1 |\n|---|---|---|---|---|---|---|\n");
  for (int seed = 1; seed <= seeds; ++seed) {
    Candidate start;
    if (graph_file.empty()) {
      start = RandomDag({.seed = static_cast<uint64_t>(seed), .nodes = n});
    } else {
      absl::StatusOr<compiler::Graph> graph = compiler::ParseFile(graph_file);
      if (!graph.ok()) {
        std::fprintf(stderr, "%s\n", graph.status().ToString().c_str());
        return;
      }
      n = static_cast<int>(CountComputeNodes(*graph));
      start = Candidate{*graph, compiler::SeededInputs(*graph, seed)};
    }
    double wall1 = 0;
    MinifyStats first;
    std::string first_graph;
    for (int jobs : {1, 4, 8}) {
      FunctionInterestingness interestingness(
          [](const Candidate& c) {
            absl::SleepFor(absl::Seconds(JudgeSeconds(c)));
            return HasChain(c.graph, {Op::kRelu}) ? "fail" : "pass";
          },
          "fail");
      MinifyOptions options;
      options.jobs = jobs;
      options.fp64_values = true;
      options.costly_oracle = std::getenv("MINIFY_BENCH_WINDOWS") != nullptr;
      absl::Time t0 = absl::Now();
      absl::StatusOr<MinifyResult> result = Minify(start, interestingness, options);
      const double wall = absl::ToDoubleSeconds(absl::Now() - t0);
      if (!result.ok()) {
        std::fprintf(stderr, "error: %s\n", result.status().ToString().c_str());
        return;
      }
      PrintDetail(result->stats);
      const std::string graph = CandidateKey(result->best);
      if (jobs == 1) {
        wall1 = wall;
        first = result->stats;
        first_graph = graph;
      }
      const bool same = result->stats.accepted_sequence == first.accepted_sequence &&
                        graph == first_graph;
      std::printf("| %d | %d | %d | %.3f | %.2fx | %lld / %lld (%.2fx -j 1's) | %s |\n", seed, n,
                  jobs, wall, wall1 / wall, static_cast<long long>(result->stats.oracle_calls),
                  static_cast<long long>(result->stats.oracle_calls_used),
                  static_cast<double>(result->stats.oracle_calls) /
                      static_cast<double>(first.oracle_calls),
                  same ? "yes" : "NO");
      std::fflush(stdout);
    }
  }
}

// The known minimum is the single `culprit` node the fault is planted on.
void RunRealCase(repro::Oracle& oracle, Row& row, Candidate start, const std::string& fault,
                 Op culprit) {
  compiler::CompileOptions options;
  options.faults = {fault};
  NameUnnamedNodes(start.graph);
  absl::StatusOr<repro::Verdict> first = oracle.Judge(start.graph, start.inputs, options);
  if (!first.ok() || !repro::IsFailure(first->kind)) {
    std::fprintf(stderr, "skipped: start does not fail (%s)\n",
                 first.ok() ? first->signature.ToString().c_str()
                            : first.status().ToString().c_str());
    return;
  }
  // As `reprokit minify` does: accuracy failures anchored upstream, so the
  // known minimum is the single culprit for every fault.
  OracleInterestingness interestingness(&oracle, options, first->signature, start.graph);
  MinifyOptions minify;
  minify.fp64_values = first->kind == repro::VerdictKind::kAccuracy;
  absl::StatusOr<MinifyResult> results[2];
  double seconds[2];
  for (int j : {1, 2}) {
    minify.jobs = j;
    absl::Time t0 = absl::Now();
    results[j - 1] = Minify(start, interestingness, minify);
    seconds[j - 1] = absl::ToDoubleSeconds(absl::Now() - t0);
    if (!results[j - 1].ok()) {
      std::fprintf(stderr, "error: %s\n", results[j - 1].status().ToString().c_str());
      return;
    }
    PrintDetail(results[j - 1]->stats);
  }
  const MinifyResult& one = *results[0];
  const MinifyResult& two = *results[1];
  bool minimal = one.stats.final_score.compute_nodes() == 1 &&
                 HasChain(one.best.graph, {culprit}) && !one.stats.flaky;
  if (!minimal) {
    std::fprintf(stderr, "not minimal (%s -> %s):\n%s", first->signature.ToString().c_str(),
                 one.stats.signature.c_str(), compiler::PrintInline(one.best.graph).c_str());
  }
  Record(row, one, seconds[0], minimal);
  row.calls2 += two.stats.oracle_calls;
  row.max_calls2 = std::max<double>(row.max_calls2, two.stats.oracle_calls);
  row.used2 += two.stats.oracle_calls_used;
  row.max_used2 = std::max<double>(row.max_used2, two.stats.oracle_calls_used);
  row.seconds2 += seconds[1];
  row.max_seconds2 = std::max(row.max_seconds2, seconds[1]);
  row.same_graph += CandidateKey(one.best) == CandidateKey(two.best);
}

// The real oracle of the real and grad modes: 2 isolated workers (-j 2
// judges two candidates at once); null after printing why it did not start.
std::unique_ptr<repro::Oracle> RealOracle() {
  repro::Oracle::Config config;
  config.workers = 2;
  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle = repro::Oracle::Create(config);
  if (!oracle.ok()) {
    std::fprintf(stderr, "oracle: %s\n", oracle.status().ToString().c_str());
    return nullptr;
  }
  return *std::move(oracle);
}

void RunGrad(int seeds) {
  std::unique_ptr<repro::Oracle> oracle = RealOracle();
  if (oracle == nullptr) return;
  PrintRealHeader();
  const char* fault = "vjp:mul:swap_operands";
  for (int n : {50, 200, 1000}) {
    Row row{fault, n, 1};
    for (int seed = 1; seed <= seeds; ++seed) {
      Candidate start = RandomDag({.seed = static_cast<uint64_t>(seed), .nodes = n,
                                   .planted = {Op::kMul}});
      absl::StatusOr<compiler::Graph> marked = repro::ApplyGradFlag(start.graph, "all-float");
      if (!marked.ok()) {
        std::fprintf(stderr, "grad: %s\n", marked.status().ToString().c_str());
        return;
      }
      start.graph = *std::move(marked);
      RunRealCase(*oracle, row, std::move(start), fault, Op::kMul);
    }
    if (row.cases > 0) PrintRealRow(row);
  }
}

void RunReal(int seeds) {
  std::unique_ptr<repro::Oracle> oracle = RealOracle();
  if (oracle == nullptr) return;
  PrintRealHeader();
  for (const char* fault : {"relu:accuracy", "relu:crash"}) {
    for (int n : {50, 200, 1000}) {
      Row row{fault, n, 1};
      for (int seed = 1; seed <= seeds; ++seed) {
        RunRealCase(*oracle, row, RandomDag({.seed = static_cast<uint64_t>(seed), .nodes = n}),
                    fault, Op::kRelu);
      }
      if (row.cases > 0) PrintRealRow(row);
    }
  }
  struct Planted {
    const char* file;
    const char* fault;
    Op culprit;
  };
  for (const Planted& p : {Planted{"examples/mlp.rk", "relu:accuracy", Op::kRelu},
                           Planted{"examples/softmax.rk", "div:accuracy", Op::kDiv},
                           Planted{"examples/layer_norm.rk", "rsqrt:accuracy", Op::kRsqrt},
                           Planted{"examples/attention.rk", "matmul:accuracy", Op::kMatmul},
                           Planted{"examples/mixed_bf16.rk", "reduce_sum:accuracy", Op::kReduceSum},
                           // Faults in ops that composites lower to (softmax's
                           // and layer_norm's sub, gelu's mul) or beside them.
                           Planted{"examples/attention.rk", "sub:accuracy", Op::kSub},
                           Planted{"examples/mixed_bf16.rk", "mul:accuracy", Op::kMul},
                           Planted{"examples/mixed_bf16.rk", "add:accuracy", Op::kAdd}}) {
    absl::StatusOr<compiler::Graph> graph = compiler::ParseFile(p.file);
    if (!graph.ok()) continue;
    Row row{std::string(p.file) + " " + p.fault, graph->num_nodes() - graph->num_inputs(), 1};
    std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(*graph, 0);
    RunRealCase(*oracle, row, Candidate{*graph, inputs}, p.fault, p.culprit);
    if (row.cases > 0) PrintRealRow(row);
  }
}

}  // namespace
}  // namespace rk::minifier

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "fake";
  int seeds = argc > 2 ? std::atoi(argv[2]) : (mode == "fake" ? 25 : 5);
  if (mode == "fake") {
    rk::minifier::RunFake(seeds);
  } else if (mode == "real") {
    rk::minifier::RunReal(seeds);
  } else if (mode == "grad") {
    rk::minifier::RunGrad(seeds);
  } else if (mode == "timed") {
    const std::string size = argc > 3 ? argv[3] : "1000";
    const bool file = size.find_first_not_of("0123456789") != std::string::npos;
    rk::minifier::RunTimed(argc > 2 ? seeds : 3, file ? 0 : std::atoi(size.c_str()),
                           file ? size : "");
  } else {
    std::fprintf(stderr, "usage: minify_bench fake|real|grad [SEEDS] | timed [SEEDS] [N|GRAPH.rk]\n");
    return 2;
  }
  return 0;
}
