#include "testing/op_coverage_test_util.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "compiler/generator/value_range.h"
#include "compiler/ir/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/promote.h"
#include "minifier/candidate.h"
#include "minifier/reduction.h"

namespace rk::op_coverage {
namespace {

using compiler::Graph;
using compiler::HostTensor;
using compiler::Op;

constexpr uint64_t kSeed = 7;
// Compiled f32 code against the reference: libm and the inline exp are within
// a few ulp; sums and matmul accumulate in f64 on both sides.
constexpr double kCompiledRtol = 1e-4;
// Native f32 against fp64 on these tiny, well-conditioned samples.
constexpr double kFp64Rtol = 1e-3;
// Graphs the generator draws from {op} alone before it is judged unable.
constexpr int kGeneratorSeeds = 16;

bool HasOp(const Graph& graph, Op op) {
  return std::any_of(graph.nodes().begin(), graph.nodes().end(),
                     [op](const compiler::Node& node) { return node.op == op; });
}

absl::Status Missing(std::string what) { return absl::NotFoundError(std::move(what)); }

absl::Status CompareOutputs(const std::vector<HostTensor>& got, const std::vector<HostTensor>& want,
                            double rtol, const char* what) {
  if (got.size() != want.size()) return Missing(absl::StrCat(what, ": output count differs"));
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = compiler::MaxRelativeError(got[i], want[i], 1e-6);
    if (err > rtol) {
      return Missing(absl::StrCat(what, ": output ", i, " off by ", err, " (relative)\n got ",
                                  got[i].Summary(), "\nwant ", want[i].Summary()));
    }
  }
  return absl::OkStatus();
}

// (b) Native dtypes, then PromoteToF64 (every float f64) and evaluation in
// f64; the two agree on a sample this small.
absl::Status CheckReference(const Graph& graph, const std::vector<HostTensor>& inputs) {
  absl::StatusOr<compiler::EvalResult> native = compiler::Evaluate(graph, inputs);
  if (!native.ok()) return native.status();
  absl::StatusOr<Graph> promoted = compiler::PromoteToF64(graph);
  if (!promoted.ok()) return promoted.status();
  for (const compiler::Node& node : promoted->nodes()) {
    if (compiler::IsFloat(node.type.dtype) && node.type.dtype != compiler::DType::kF64) {
      return Missing(absl::StrCat("PromoteToF64 left a ", node.type.ToString(), " node"));
    }
  }
  compiler::EvalOptions fp64;
  fp64.fp64 = true;
  absl::StatusOr<compiler::EvalResult> wide = compiler::Evaluate(graph, inputs, fp64);
  if (!wide.ok()) return wide.status();
  return CompareOutputs(native->outputs, wide->outputs, kFp64Rtol, "native vs fp64");
}

// The op is still there after the graph passes, so the lowering checks below
// compile it rather than whatever it was rewritten to.
absl::Status CheckReachesKernels(Op op, const Graph& graph) {
  absl::StatusOr<compiler::PassContext> context =
      compiler::PassContext::Create(compiler::CompileOptions());
  if (!context.ok()) return context.status();
  absl::StatusOr<Graph> optimized = compiler::RunGraphPipeline(graph, *context);
  if (!optimized.ok()) return optimized.status();
  if (!HasOp(*optimized, op)) return Missing("the graph pipeline removes it");
  return absl::OkStatus();
}

// (c) device=cpu: compiles to at least one kernel, runs, matches the reference.
absl::Status CheckCpu(const Graph& graph, const std::vector<HostTensor>& inputs) {
  compiler::CompileOptions options;
  options.device = "cpu";
  absl::StatusOr<compiler::Executable> exe = compiler::Compile(graph, options);
  if (!exe.ok()) return exe.status();
  if (exe->num_kernels() == 0) return Missing("compiles to no kernel");
  absl::StatusOr<std::vector<HostTensor>> got = exe->Run(inputs);
  if (!got.ok()) return got.status();
  absl::StatusOr<compiler::EvalResult> want = compiler::Evaluate(graph, inputs);
  if (!want.ok()) return want.status();
  return CompareOutputs(*got, want->outputs, kCompiledRtol, "cpu vs reference");
}

// (d) Kernel IR -> PTX through the CUDA code generator (no GPU needed).
absl::Status CheckGpu(const std::string& text) {
  absl::StatusOr<compiler::kernel::Program> program = compiler::cuda::LowerToKernelIr(text);
  if (!program.ok()) return program.status();
  absl::StatusOr<compiler::cuda::PtxProgram> ptx =
      compiler::cuda::CompileToPtx(*program, compiler::cuda::GpuOptions());
  if (!ptx.ok()) return ptx.status();
  if (ptx->launches.empty()) return Missing("compiles to no kernel");
  if (absl::StrContains(ptx->ptx, ".extern")) return Missing("PTX calls an unresolved function");
  return absl::OkStatus();
}

// Whether every element of `values` lies in `range` (up to rounding of the
// bounds themselves).
bool Within(const HostTensor& values, const compiler::generator::ValueRange& range) {
  const double slack = 1e-9 * (1 + range.MaxAbs());
  for (int64_t i = 0; i < values.num_elements(); ++i) {
    const double v = values.GetDouble(i);
    if (!(v >= range.lo - slack && v <= range.hi + slack)) return false;
  }
  return true;
}

compiler::generator::ValueRange Observed(const HostTensor& values) {
  compiler::generator::ValueRange r{INFINITY, -INFINITY};
  for (int64_t i = 0; i < values.num_elements(); ++i) {
    r.lo = std::min(r.lo, values.GetDouble(i));
    r.hi = std::max(r.hi, values.GetDouble(i));
  }
  return r;
}

// (e) The generator, drawing from {op, neg}, emits the op, and its value
// range rule (value_range.h) holds: given the operands' observed fp64 ranges,
// InferRange bounds every fp64 value of the op's result. neg rides along
// because a graph must have a compute node and some builders may place
// nothing (a slice that keeps the whole shape, inputs that come only with
// their users).
absl::Status CheckGenerator(Op op, const CoverageTables& tables) {
  compiler::generator::GeneratorOptions options;
  options.nodes = 3;
  options.ops = {op};
  if (op != Op::kNeg) options.ops.push_back(Op::kNeg);
  int emitted = 0;
  for (uint64_t seed = 1; seed <= kGeneratorSeeds; ++seed) {
    absl::StatusOr<compiler::generator::GeneratedGraph> g = tables.generate(seed, options);
    if (!g.ok()) return g.status();
    if (!HasOp(g->graph, op)) continue;
    compiler::EvalOptions eval;
    eval.fp64 = true;
    eval.record_intermediates = true;
    absl::StatusOr<compiler::EvalResult> r =
        compiler::Evaluate(g->graph, g->MakeInputs(seed), eval);
    if (!r.ok()) return r.status();
    for (size_t id = 0; id < g->graph.nodes().size(); ++id) {
      const compiler::Node& node = g->graph.nodes()[id];
      if (node.op != op) continue;
      ++emitted;
      std::vector<compiler::generator::ValueFacts> operands;
      for (compiler::NodeId operand : node.operands) {
        operands.push_back({g->graph.type(operand), Observed(r->values[operand.value]), true});
      }
      const compiler::generator::ValueRange range = compiler::generator::InferRange(op, operands, node.attrs, node.type);
      if (!Within(r->values[id], range)) {
        return Missing(absl::StrCat("value_range: InferRange gives [", range.lo, ", ", range.hi,
                                    "] but seed ", seed, " of {", std::string(compiler::OpName(op)), ", neg}", " computes ",
                                    r->values[id].Summary()));
      }
    }
  }
  if (emitted == 0) {
    return Missing(absl::StrCat("never emitted in ", kGeneratorSeeds, " graphs drawn from {it, neg}"));
  }
  return absl::OkStatus();
}

// (f) simplify_op offers a rewrite for the op and one of its targets makes the
// sample smaller.
absl::Status CheckMinifier(Op op, const Graph& graph, const std::vector<HostTensor>& inputs,
                           const CoverageTables& tables) {
  if (tables.simplifications(op).empty()) return Missing("SimplificationsOf offers nothing");
  const minifier::Candidate sample{graph, inputs};
  const minifier::ReductionPlan plan = minifier::SimplifyOp(minifier::ReductionInput{sample});
  const minifier::Score before = minifier::ComputeScore(sample);
  for (int t = 0; t < plan.num_targets; ++t) {
    absl::StatusOr<minifier::Candidate> built = plan.build(std::vector<int>{t});
    if (built.ok() && minifier::ComputeScore(*built) < before) return absl::OkStatus();
  }
  return Missing(absl::StrCat("none of simplify_op's ", plan.num_targets,
                              " targets shrinks the sample"));
}

const Exemption* FindExemption(Op op, Piece piece, const CoverageTables& tables) {
  for (const Exemption& e : tables.exemptions) {
    if (e.op == op && e.piece == piece) return &e;
  }
  return nullptr;
}

}  // namespace

CoverageTables RealTables() {
  return {OpSamples(), OpExemptions(),
          [](uint64_t seed, const compiler::generator::GeneratorOptions& options) {
            return compiler::generator::Generate(seed, options);
          },
          minifier::SimplificationsOf};
}

std::vector<std::string> CheckOp(Op op, const CoverageTables& tables) {
  const std::string name(compiler::OpName(op));
  std::vector<std::string> problems;
  const auto sample = std::find_if(tables.samples.begin(), tables.samples.end(),
                                   [&](const OpSample& s) { return s.op == name; });
  if (sample == tables.samples.end()) {
    problems.push_back(absl::StrCat(name, ": no sample graph (testing/op_samples_test_util.cc)"));
    return problems;
  }
  const auto report = [&](Piece piece, const absl::Status& status) {
    const Exemption* exempt = FindExemption(op, piece, tables);
    if (exempt == nullptr && !status.ok()) {
      problems.push_back(
          absl::StrCat(name, ": missing ", std::string(PieceName(piece)), ": ", status.ToString()));
    } else if (exempt != nullptr && status.ok()) {
      problems.push_back(absl::StrCat(name, ": stale exemption from ", std::string(PieceName(piece)), " (\"",
                                      exempt->reason, "\"): it has that piece now"));
    }
  };
  // (a) Parsing runs InferType on every node and checks the declared type.
  absl::StatusOr<Graph> graph = compiler::Parse(sample->text);
  if (graph.ok() && !HasOp(*graph, op)) {
    problems.push_back(absl::StrCat(name, ": its sample graph has no ", name, " node"));
    return problems;
  }
  report(Piece::kShapeInference, graph.status());
  if (!graph.ok()) return problems;
  const std::vector<HostTensor> inputs = compiler::SeededInputs(*graph, kSeed, sample->inputs);
  report(Piece::kReference, CheckReference(*graph, inputs));
  report(Piece::kReachesKernels, CheckReachesKernels(op, *graph));
  report(Piece::kCpu, CheckCpu(*graph, inputs));
  report(Piece::kGpu, CheckGpu(sample->text));
  report(Piece::kGenerator, CheckGenerator(op, tables));
  report(Piece::kMinifier, CheckMinifier(op, *graph, inputs, tables));
  return problems;
}

std::vector<std::string> CheckTables(const CoverageTables& tables) {
  std::vector<std::string> problems;
  std::set<std::string> seen;
  for (const OpSample& s : tables.samples) {
    if (!compiler::ParseOp(s.op).has_value()) {
      problems.push_back(absl::StrCat("sample for unknown op '", s.op, "'"));
    }
    if (!seen.insert(s.op).second) problems.push_back(absl::StrCat("two samples for ", s.op));
  }
  std::set<std::pair<Op, Piece>> exempt;
  for (const Exemption& e : tables.exemptions) {
    const std::string name(compiler::OpName(e.op));
    if (e.reason.empty()) {
      problems.push_back(absl::StrCat(name, ": exemption from ", std::string(PieceName(e.piece)),
                                      " without a reason"));
    }
    if (!exempt.insert({e.op, e.piece}).second) {
      problems.push_back(absl::StrCat(name, ": two exemptions from ", std::string(PieceName(e.piece))));
    }
  }
  return problems;
}

}  // namespace rk::op_coverage
