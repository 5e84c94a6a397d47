#include "minifier/reductions/simplify_op.h"

#include <algorithm>

#include "compiler/options/compile_options.h"
#include "compiler/passes/decompose.h"
#include "compiler/passes/pass_manager.h"
#include "minifier/rewrite.h"

namespace rk::minifier {
namespace {

using compiler::Graph;
using compiler::HostTensor;
using compiler::NodeId;
using compiler::Op;
using compiler::OpKind;

bool Offers(Op op, OpSimplification simplification) {
  const std::vector<OpSimplification> offered = SimplificationsOf(op);
  return std::find(offered.begin(), offered.end(), simplification) != offered.end();
}

absl::StatusOr<Candidate> LowerComposites(Candidate candidate) {
  absl::StatusOr<compiler::PassContext> context =
      compiler::PassContext::Create(compiler::CompileOptions());
  if (!context.ok()) return context.status();
  absl::StatusOr<bool> changed = compiler::Decompose(candidate.graph, *context);
  if (!changed.ok()) return changed.status();
  return candidate;
}

// A smaller matmul: its contracted dim, or its batch dims, set to 1 on both
// operands, which must be graph inputs (their values: the leading block).
struct MatmulShrink {
  NodeId a, b;
  bool contracted;  // else batch
};

// Per input position, the dims after applying `shrinks` (smallest request
// wins when an input feeds several matmuls).
std::vector<std::vector<int64_t>> ShrunkDims(const Candidate& base,
                                             const std::vector<MatmulShrink>& shrinks) {
  std::vector<std::vector<int64_t>> dims;
  for (const HostTensor& t : base.inputs) dims.push_back(t.shape().dims());
  for (const MatmulShrink& s : shrinks) {
    std::vector<int64_t>& a = dims[s.a.value];
    std::vector<int64_t>& b = dims[s.b.value];
    if (s.contracted) {
      a[a.size() - 1] = std::min<int64_t>(a[a.size() - 1], 1);
      b[b.size() - 2] = std::min<int64_t>(b[b.size() - 2], 1);
    } else {
      for (size_t d = 0; d + 2 < a.size(); ++d) a[d] = std::min<int64_t>(a[d], 1);
      for (size_t d = 0; d + 2 < b.size(); ++d) b[d] = std::min<int64_t>(b[d], 1);
    }
  }
  return dims;
}

std::vector<MatmulShrink> MatmulTargets(const Graph& g) {
  std::vector<MatmulShrink> targets;
  for (NodeId id : ComputeNodeIds(g)) {
    const compiler::Node& node = g.node(id);
    if (!Offers(node.op, OpSimplification::kShrinkMatmul)) continue;
    NodeId a = node.operands[0], b = node.operands[1];
    if (g.node(a).op != Op::kInput || g.node(b).op != Op::kInput || a == b) continue;
    const std::vector<int64_t>& da = g.type(a).shape.dims();
    const std::vector<int64_t>& db = g.type(b).shape.dims();
    if (da.back() > 1) targets.push_back({a, b, true});
    bool batched = std::any_of(da.begin(), da.end() - 2, [](int64_t d) { return d > 1; }) ||
                   std::any_of(db.begin(), db.end() - 2, [](int64_t d) { return d > 1; });
    if (batched) targets.push_back({a, b, false});
  }
  return targets;
}

}  // namespace

std::vector<OpSimplification> SimplificationsOf(Op op) {
  switch (compiler::GetOpKind(op)) {
    case OpKind::kUnary:
    case OpKind::kScan: return {OpSimplification::kForwardOperand};
    case OpKind::kComposite: return {OpSimplification::kLowerComposite};
    case OpKind::kMatmul: return {OpSimplification::kShrinkMatmul};
    default: return {};
  }
}

ReductionPlan SimplifyOp(const ReductionInput& input) {
  const Candidate& base = input.current;
  const Graph& g = base.graph;
  std::vector<NodeId> unary;
  bool has_composite = false;
  for (NodeId id : ComputeNodeIds(g)) {
    const Op op = g.node(id).op;
    if (Offers(op, OpSimplification::kForwardOperand) &&
        g.type(g.node(id).operands[0]) == g.type(id)) {
      unary.push_back(id);
    }
    has_composite |= Offers(op, OpSimplification::kLowerComposite);
  }
  std::vector<MatmulShrink> matmuls = MatmulTargets(g);
  const int num_unary = static_cast<int>(unary.size());
  const int lower_target = has_composite ? num_unary : -1;
  const int first_matmul = num_unary + (has_composite ? 1 : 0);
  ReductionPlan plan;
  plan.num_targets = first_matmul + static_cast<int>(matmuls.size());
  plan.build = [&base, unary, matmuls, num_unary, lower_target,
                first_matmul](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    std::vector<MatmulShrink> shrinks;
    for (int t : chosen) {
      if (t >= first_matmul) shrinks.push_back(matmuls[t - first_matmul]);
    }
    // Shrinking inputs keeps every node id, so the edit below applies as is.
    Candidate shrunk = base;
    if (!shrinks.empty()) {
      std::vector<std::vector<int64_t>> dims = ShrunkDims(base, shrinks);
      std::vector<HostTensor> inputs;
      for (size_t i = 0; i < base.inputs.size(); ++i) {
        inputs.push_back(LeadingBlock(base.inputs[i], compiler::Shape(dims[i])));
      }
      absl::StatusOr<Candidate> rebuilt = RebuildOnInputs(base, std::move(inputs));
      if (!rebuilt.ok()) return rebuilt.status();
      shrunk = *std::move(rebuilt);
    }
    GraphEdit edit(shrunk.graph);
    bool lower = false;
    for (int t : chosen) {
      if (t < num_unary) edit.Forward(unary[t], shrunk.graph.node(unary[t]).operands[0]);
      lower |= t == lower_target;
    }
    absl::StatusOr<Candidate> edited = ApplyEdit(shrunk, {}, edit);
    if (!edited.ok() || !lower) return edited;
    return LowerComposites(*std::move(edited));
  };
  return plan;
}

}  // namespace rk::minifier
