#include "minifier/reductions/simplify_op.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "compiler/ir/window.h"
#include "compiler/options/compile_options.h"
#include "minifier/reductions/lower_composites.h"
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

// A target that shrinks graph inputs: per input, the largest each dim may
// keep (kKeep: unchanged). Inputs keep their leading blocks.
constexpr int64_t kKeep = std::numeric_limits<int64_t>::max();
struct InputShrink {
  std::vector<std::pair<NodeId, std::vector<int64_t>>> caps;
};

// Per input position, the dims after applying `shrinks` (smallest request
// wins when an input is shrunk by several targets).
std::vector<std::vector<int64_t>> ShrunkDims(const Candidate& base,
                                             const std::vector<InputShrink>& shrinks) {
  std::vector<std::vector<int64_t>> dims;
  for (const HostTensor& t : base.inputs) dims.push_back(t.shape().dims());
  for (const InputShrink& s : shrinks) {
    for (const auto& [input, caps] : s.caps) {
      std::vector<int64_t>& d = dims[input.value];
      for (size_t i = 0; i < d.size() && i < caps.size(); ++i) d[i] = std::min(d[i], caps[i]);
    }
  }
  return dims;
}

// A matmul of two distinct inputs: its contracted dim set to 1 on both, or
// its batch dims.
void MatmulTargets(const Graph& g, NodeId id, std::vector<InputShrink>& targets) {
  const compiler::Node& node = g.node(id);
  NodeId a = node.operands[0], b = node.operands[1];
  if (g.node(a).op != Op::kInput || g.node(b).op != Op::kInput || a == b) return;
  const std::vector<int64_t>& da = g.type(a).shape.dims();
  const std::vector<int64_t>& db = g.type(b).shape.dims();
  if (da.back() > 1) {
    std::vector<int64_t> ca(da.size(), kKeep), cb(db.size(), kKeep);
    ca[ca.size() - 1] = 1;
    cb[cb.size() - 2] = 1;
    targets.push_back({{{a, ca}, {b, cb}}});
  }
  bool batched = std::any_of(da.begin(), da.end() - 2, [](int64_t d) { return d > 1; }) ||
                 std::any_of(db.begin(), db.end() - 2, [](int64_t d) { return d > 1; });
  if (batched) {
    std::vector<int64_t> ca(da.size(), 1), cb(db.size(), 1);
    ca[ca.size() - 1] = ca[ca.size() - 2] = kKeep;
    cb[cb.size() - 1] = cb[cb.size() - 2] = kKeep;
    targets.push_back({{{a, ca}, {b, cb}}});
  }
}

// conv2d and the pools with an input x: H and W cut to what one window
// needs (span minus padding, at least 1). conv2d with input weights: the
// kernel cut to 1x1; with both inputs: one input channel per group.
void WindowTargets(const Graph& g, NodeId id, std::vector<InputShrink>& targets) {
  const compiler::Node& node = g.node(id);
  const NodeId x = node.operands[0];
  const bool conv = node.op == Op::kConv2d;
  const compiler::Shape weights = conv ? g.type(node.operands[1]).shape : compiler::Shape();
  const compiler::Window2d window = compiler::ReadWindow(node.op, node.attrs, weights);
  const bool x_input = g.node(x).op == Op::kInput;
  const compiler::Shape& xs = g.type(x).shape;
  if (x_input && xs.rank() == 4) {
    std::vector<int64_t> caps = {kKeep, kKeep, 0, 0};
    bool smaller = false;
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t pads = window.pad_before[axis] + window.pad_after[axis];
      caps[2 + axis] = std::max<int64_t>(1, window.Span(axis) - pads);
      smaller |= caps[2 + axis] < xs.dim(2 + axis);
    }
    if (smaller) targets.push_back({{{x, caps}}});
  }
  if (!conv || weights.rank() != 4) return;
  const NodeId w = node.operands[1];
  if (g.node(w).op != Op::kInput || w == x) return;
  if (weights.dim(2) > 1 || weights.dim(3) > 1) targets.push_back({{{w, {kKeep, kKeep, 1, 1}}}});
  if (x_input && weights.dim(1) > 1) {
    targets.push_back({{{x, {kKeep, window.groups, kKeep, kKeep}}, {w, {kKeep, 1, kKeep, kKeep}}}});
  }
}

std::vector<InputShrink> ShrinkTargets(const Graph& g) {
  std::vector<InputShrink> targets;
  for (NodeId id : ComputeNodeIds(g)) {
    const Op op = g.node(id).op;
    if (Offers(op, OpSimplification::kShrinkMatmul)) MatmulTargets(g, id, targets);
    if (Offers(op, OpSimplification::kShrinkWindowInput)) WindowTargets(g, id, targets);
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
    case OpKind::kWindow:
      if (op == Op::kConv2d) {
        return {OpSimplification::kShrinkWindowInput, OpSimplification::kShrinkConvWeights};
      }
      return {OpSimplification::kShrinkWindowInput};
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
  std::vector<InputShrink> shrinks_offered = ShrinkTargets(g);
  const int num_unary = static_cast<int>(unary.size());
  const int lower_target = has_composite ? num_unary : -1;
  const int first_shrink = num_unary + (has_composite ? 1 : 0);
  ReductionPlan plan;
  plan.num_targets = first_shrink + static_cast<int>(shrinks_offered.size());
  plan.build = [&base, unary, shrinks_offered, num_unary, lower_target,
                first_shrink](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    std::vector<InputShrink> shrinks;
    for (int t : chosen) {
      if (t >= first_shrink) shrinks.push_back(shrinks_offered[t - first_shrink]);
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
    return LowerAllComposites(*std::move(edited));
  };
  return plan;
}

}  // namespace rk::minifier
