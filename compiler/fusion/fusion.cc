#include "compiler/fusion/fusion.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/shape_inference.h"

namespace rk::compiler::fusion {
namespace {

bool IsCheap(Op op) {
  if (op == Op::kFull || op == Op::kIota) return true;
  return GetOpKind(op) == OpKind::kLayout && op != Op::kConcat;
}

bool IsRootOnly(Op op) {
  const OpKind kind = GetOpKind(op);
  return kind == OpKind::kReduce || kind == OpKind::kMatmul || kind == OpKind::kWindow ||
         kind == OpKind::kScan ||
         op == Op::kConcat;
}

// How many times a fused node may be computed per element of its group's
// output: once per distinct index it is read at. Index maps (layout ops,
// gather) read their operand at an index of their own, so a value read
// through several of them is computed several times; through chains of such
// reads (the pads, slices and taps of gradient graphs) that multiplies level
// by level into kernels of millions of instructions. A value read at more
// indices than this is materialized instead.
constexpr int64_t kMaxEvaluations = 2;

// Whether `op` reads its operand at an index other than its own.
bool MovesIndex(Op op) {
  return GetOpKind(op) == OpKind::kLayout || op == Op::kGather;
}

std::string Describe(const Graph& graph, NodeId id) {
  return absl::StrCat("%", graph.DisplayName(id), " (", std::string(OpName(graph.node(id).op)), ")");
}

GroupKind KindOf(Op op) {
  switch (GetOpKind(op)) {
    case OpKind::kReduce: return GroupKind::kReduction;
    case OpKind::kMatmul: return GroupKind::kMatmul;
    case OpKind::kWindow: return GroupKind::kWindow;
    case OpKind::kScan: return GroupKind::kScan;
    default: return op == Op::kConcat ? GroupKind::kConcat : GroupKind::kElementwise;
  }
}

class Planner {
 public:
  Planner(const Graph& graph, PassContext& context)
      : graph_(graph), context_(context), users_(graph.ComputeUsers()),
        groups_of_(graph.num_nodes()), evaluations_(graph.num_nodes(), 1),
        max_ops_(context.options().device == "cuda" ? context.options().cuda_max_fused_ops : 0) {
    plan_.materialized.assign(graph.num_nodes(), false);
    is_output_.assign(graph.num_nodes(), false);
    for (NodeId out : graph.outputs()) is_output_[out.value] = true;
  }

  absl::StatusOr<FusionPlan> Run() {
    for (int i = graph_.num_nodes() - 1; i >= 0; --i) {
      absl::Status status = Visit(NodeId(i));
      if (!status.ok()) return status;
    }
    std::sort(groups_.begin(), groups_.end(),
              [](const FusionGroup& a, const FusionGroup& b) { return a.root < b.root; });
    for (FusionGroup& group : groups_) {
      std::sort(group.members.begin(), group.members.end());
      group.detail = Detail(group);
    }
    plan_.groups = std::move(groups_);
    return std::move(plan_);
  }

 private:
  absl::Status Visit(NodeId id) {
    const Node& node = graph_.node(id);
    if (node.op == Op::kInput || node.op == Op::kConstant) {
      plan_.materialized[id.value] = true;
      return absl::OkStatus();
    }
    std::set<int> user_groups;
    for (NodeId user : users_[id.value]) {
      user_groups.insert(groups_of_[user.value].begin(), groups_of_[user.value].end());
    }
    if (user_groups.empty() && !is_output_[id.value]) return absl::OkStatus();  // dead
    if (is_output_[id.value]) return NewGroup(id);
    if (GetOpKind(node.op) == OpKind::kReduce && user_groups.size() == 1) {
      absl::StatusOr<bool> fused = TryEpilogue(id, *user_groups.begin());
      if (!fused.ok()) return fused.status();
      if (*fused) return absl::OkStatus();
    }
    if (IsRootOnly(node.op)) return NewGroup(id);
    const bool cheap = IsCheap(node.op);
    for (int g : user_groups) {
      const GroupKind kind = groups_[g].kind;
      if ((kind == GroupKind::kMatmul || kind == GroupKind::kWindow) && !cheap) return NewGroup(id);
    }
    if (user_groups.size() > 1 && !cheap) return NewGroup(id);
    const int64_t evaluations = Evaluations(id);
    if (!cheap && evaluations > kMaxEvaluations) return NewGroup(id);
    // A full group (the CUDA cap, below) starts a new kernel at `id`.
    if (!cheap && max_ops_ > 0) {
      for (int g : user_groups) {
        if (ops_[g] >= max_ops_) return NewGroup(id);
      }
    }
    std::string detail =
        user_groups.size() == 1
            ? absl::StrCat(Describe(graph_, id), " into ",
                           Describe(graph_, groups_[*user_groups.begin()].root))
            : absl::StrCat(Describe(graph_, id), " recomputed in ", user_groups.size(),
                           " groups");
    absl::StatusOr<bool> apply = context_.ShouldApply("fuse", detail);
    if (!apply.ok()) return apply.status();
    if (!*apply) return NewGroup(id);
    for (int g : user_groups) {
      groups_[g].members.push_back(id);
      if (!cheap) ++ops_[g];
    }
    groups_of_[id.value].assign(user_groups.begin(), user_groups.end());
    evaluations_[id.value] = evaluations;
    return absl::OkStatus();
  }

  // Distinct indices `id` would be read at in its users' groups: users at
  // their own index share one (the most any of them has), index maps add
  // theirs. Roots and materialized values count 1.
  int64_t Evaluations(NodeId id) const {
    int64_t shared = 0, moved = 0;
    for (NodeId user : users_[id.value]) {
      if (groups_of_[user.value].empty()) continue;
      const int64_t e = evaluations_[user.value];
      if (MovesIndex(graph_.node(user).op)) {
        moved += e;
      } else {
        shared = std::max(shared, e);
      }
    }
    return std::max<int64_t>(1, shared + moved);
  }

  absl::Status NewGroup(NodeId id) {
    FusionGroup group;
    group.kind = KindOf(graph_.node(id).op);
    group.root = id;
    plan_.materialized[id.value] = true;
    evaluations_[id.value] = 1;
    groups_of_[id.value] = {static_cast<int>(groups_.size())};
    groups_.push_back(std::move(group));
    ops_.push_back(1);
    return absl::OkStatus();
  }

  // Whether every member of `group` on a path from `reduction` to the root is
  // elementwise with the root's or the reduction's shape.
  bool EpiloguePathsElementwise(const FusionGroup& group, NodeId reduction) const {
    std::set<NodeId> depends = {reduction};
    std::vector<NodeId> nodes = group.members;
    nodes.push_back(group.root);
    std::sort(nodes.begin(), nodes.end());
    const Shape& root_shape = graph_.type(group.root).shape;
    const Shape& red_shape = graph_.type(reduction).shape;
    for (NodeId n : nodes) {
      const Node& node = graph_.node(n);
      bool on_path = false;
      for (NodeId operand : node.operands) on_path |= depends.count(operand) > 0;
      if (!on_path) continue;
      depends.insert(n);
      if (!IsElementwise(node.op)) return false;
      if (node.type.shape != root_shape && node.type.shape != red_shape) return false;
    }
    return true;
  }

  // Epilogue fusion of `reduction` into group `g`; returns whether it fused.
  absl::StatusOr<bool> TryEpilogue(NodeId reduction, int g) {
    FusionGroup& group = groups_[g];
    if (group.kind != GroupKind::kElementwise || group.reduction.valid()) return false;
    if (!EpiloguePathsElementwise(group, reduction)) return false;
    const Node& node = graph_.node(reduction);
    const Shape& root_shape = graph_.type(group.root).shape;
    int outer = -1;
    if (node.type.shape == root_shape) {
      outer = root_shape.rank();
    } else if (graph_.type(node.operands[0]).shape == root_shape &&
               node.attrs.GetBool("keepdim").value_or(false)) {
      std::vector<int> axes = ReducedAxes(node.op, node.attrs, root_shape.rank());
      const int rank = root_shape.rank();
      const int first = rank - static_cast<int>(axes.size());
      bool trailing = !axes.empty();
      for (size_t i = 0; i < axes.size(); ++i) trailing &= axes[i] == first + static_cast<int>(i);
      if (trailing) outer = first;
    }
    if (outer < 0) return false;
    absl::StatusOr<bool> apply = context_.ShouldApply(
        "fuse", absl::StrCat(Describe(graph_, reduction), " + epilogue ",
                             Describe(graph_, group.root)));
    if (!apply.ok()) return apply.status();
    if (!*apply) return false;
    group.reduction = reduction;
    group.outer_dims = outer;
    group.wrong_index = context_.faults().Has("fuse", FaultKind::kWrongIndex);
    groups_of_[reduction.value] = {g};
    evaluations_[reduction.value] = 1;  // once per outer iteration
    return true;
  }

  std::string Detail(const FusionGroup& group) const {
    std::string text = Describe(graph_, group.root);
    if (group.reduction.valid()) {
      text = absl::StrCat(Describe(graph_, group.reduction), " + epilogue ", text);
    }
    std::vector<std::string> names;
    for (NodeId m : group.members) {
      if (m != group.reduction) names.push_back(Describe(graph_, m));
    }
    if (!names.empty()) absl::StrAppend(&text, " <- ", absl::StrJoin(names, ", "));
    return text;
  }

  const Graph& graph_;
  PassContext& context_;
  std::vector<std::vector<NodeId>> users_;
  std::vector<std::vector<int>> groups_of_;
  std::vector<bool> is_output_;
  std::vector<int64_t> evaluations_;  // per fused node: Evaluations when it joined
  std::vector<FusionGroup> groups_;
  // Per group: the ops it computes that are not cheap (root included), and
  // the most a group may have (0: no cap).
  std::vector<int> ops_;
  const int max_ops_;
  FusionPlan plan_;
};

}  // namespace

absl::StatusOr<FusionPlan> PlanFusion(const Graph& graph, PassContext& context) {
  return Planner(graph, context).Run();
}

std::string PrintFusionPlan(const Graph& graph, const FusionPlan& plan) {
  std::string text;
  static constexpr const char* kKinds[] = {"elementwise", "reduction", "matmul", "concat",
                                           "window", "scan"};
  for (size_t i = 0; i < plan.groups.size(); ++i) {
    const FusionGroup& g = plan.groups[i];
    absl::StrAppend(&text, "group ", i, " [", kKinds[static_cast<int>(g.kind)], "] ", g.detail);
    if (g.reduction.valid()) absl::StrAppend(&text, " (outer dims ", g.outer_dims, ")");
    absl::StrAppend(&text, "\n");
  }
  (void)graph;
  return text;
}

}  // namespace rk::compiler::fusion
