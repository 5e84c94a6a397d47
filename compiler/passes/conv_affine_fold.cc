#include "compiler/passes/conv_affine_fold.h"

#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/passes/rewriter.h"

namespace rk::compiler {
namespace {

constexpr char kPass[] = "conv_affine_fold";

// y = a[c] * conv + d[c] for the chain ending at `last`.
struct Fold {
  NodeId conv;
  NodeId last;
  int steps = 0;
  std::vector<double> a, d;
};

// The values of a constant or full node `id` per output channel of a
// [N, C, H, W] result, if it broadcasts to that result along the channel
// only (every other dimension 1; rank 4 or less).
std::optional<std::vector<double>> PerChannel(const Graph& g, NodeId id, int64_t channels) {
  const Node& node = g.node(id);
  const Shape& shape = node.type.shape;
  if (shape.rank() > 4) return std::nullopt;
  bool per_channel = false;
  for (int i = 0; i < shape.rank(); ++i) {
    const int axis = 4 - shape.rank() + i;
    if (axis == 1 && shape.dim(i) == channels) {
      per_channel = true;
    } else if (shape.dim(i) != 1) {
      return std::nullopt;
    }
  }
  std::vector<double> values(channels);
  if (node.op == Op::kFull) {
    const std::optional<double> splat = SplatValue(g, id);
    if (!splat) return std::nullopt;
    values.assign(channels, *splat);
    return values;
  }
  if (node.op != Op::kConstant) return std::nullopt;
  absl::StatusOr<HostTensor> tensor = node.attrs.GetTensor("value");
  if (!tensor.ok()) return std::nullopt;
  for (int64_t c = 0; c < channels; ++c) values[c] = tensor->GetDouble(per_channel ? c : 0);
  return values;
}

// Extends `fold` by `user`, one step of the chain; false where `user` is
// no affine step of it.
bool Step(const Graph& g, NodeId cur, NodeId user, Fold& fold) {
  const Node& u = g.node(user);
  if (u.operands.size() != 2 || u.type != g.type(cur)) return false;
  const bool cur_first = u.operands[0] == cur;
  const NodeId other = cur_first ? u.operands[1] : u.operands[0];
  if (other == cur) return false;
  const std::optional<std::vector<double>> k =
      PerChannel(g, other, static_cast<int64_t>(fold.a.size()));
  if (!k) return false;
  for (size_t c = 0; c < fold.a.size(); ++c) {
    double& a = fold.a[c];
    double& d = fold.d[c];
    switch (u.op) {
      case Op::kAdd: d += (*k)[c]; break;
      case Op::kSub:
        if (cur_first) {
          d -= (*k)[c];
        } else {  // k - (a x + d)
          a = -a;
          d = (*k)[c] - d;
        }
        break;
      case Op::kMul:
        a *= (*k)[c];
        d *= (*k)[c];
        break;
      case Op::kDiv:
        if (!cur_first) return false;
        a /= (*k)[c];
        d /= (*k)[c];
        break;
      default: return false;
    }
  }
  fold.last = user;
  ++fold.steps;
  return true;
}

bool Worthwhile(const Graph& g, const Fold& fold) {
  if (fold.steps == 0) return false;
  if (fold.steps == 1 && g.node(fold.last).op == Op::kAdd) return false;
  for (size_t c = 0; c < fold.a.size(); ++c) {
    if (!std::isfinite(fold.a[c]) || fold.a[c] == 0 || !std::isfinite(fold.d[c])) return false;
  }
  return true;
}

// The longest foldable chain after convolution `conv`, if any.
std::optional<Fold> ChainAfter(const Graph& g, NodeId conv,
                               const std::vector<std::vector<NodeId>>& users,
                               const std::vector<bool>& is_output) {
  const Node& node = g.node(conv);
  const DType dtype = node.type.dtype;
  if ((dtype != DType::kF32 && dtype != DType::kF64) || node.type.shape.rank() != 4) {
    return std::nullopt;
  }
  if (g.node(node.operands[1]).op != Op::kConstant) return std::nullopt;
  Fold fold;
  fold.conv = conv;
  fold.last = conv;
  const int64_t channels = node.type.shape.dim(1);
  fold.a.assign(channels, 1.0);
  fold.d.assign(channels, 0.0);
  NodeId cur = conv;
  while (users[cur.value].size() == 1 && !is_output[cur.value]) {
    Fold next = fold;
    if (!Step(g, cur, users[cur.value][0], next)) break;
    fold = std::move(next);
    cur = fold.last;
  }
  if (!Worthwhile(g, fold)) return std::nullopt;
  return fold;
}

template <typename T>
void ScaleRows(const T* in, T* out, const std::vector<double>& a, int64_t per_channel) {
  for (size_t c = 0; c < a.size(); ++c) {
    for (int64_t j = 0; j < per_channel; ++j, ++in, ++out) {
      *out = static_cast<T>(static_cast<double>(*in) * a[c]);
    }
  }
}

// The convolution's weights scaled per output channel, rounded once.
absl::StatusOr<HostTensor> ScaledWeights(const Graph& g, const Fold& fold) {
  RK_ASSIGN_OR_RETURN(HostTensor w, g.node(g.node(fold.conv).operands[1]).attrs.GetTensor("value"));
  // A fresh tensor: the attribute's storage is shared with the old graph.
  HostTensor scaled = HostTensor::Uninitialized(w.type());
  const int64_t per_channel = w.num_elements() / static_cast<int64_t>(fold.a.size());
  if (w.dtype() == DType::kF32) {
    ScaleRows(w.data<float>(), scaled.data<float>(), fold.a, per_channel);
  } else {
    ScaleRows(w.data<double>(), scaled.data<double>(), fold.a, per_channel);
  }
  return scaled;
}

absl::StatusOr<NodeId> BuildFolded(Rewriter& r, const Fold& fold) {
  const Graph& g = r.old_graph();
  const Node& conv = g.node(fold.conv);
  RK_ASSIGN_OR_RETURN(HostTensor weights, ScaledWeights(g, fold));
  RK_ASSIGN_OR_RETURN(NodeId w, r.builder().Constant(std::move(weights)));
  RK_ASSIGN_OR_RETURN(NodeId out, r.Add(Op::kConv2d, {r.Map(conv.operands[0]), w}, conv.attrs));
  bool any_shift = false;
  for (double d : fold.d) any_shift |= d != 0;
  if (!any_shift) return out;
  const int64_t channels = static_cast<int64_t>(fold.d.size());
  HostTensor bias(TensorType(conv.type.dtype, Shape({channels, 1, 1})));
  for (int64_t c = 0; c < channels; ++c) bias.SetDouble(c, fold.d[c]);
  RK_ASSIGN_OR_RETURN(NodeId b, r.builder().Constant(std::move(bias)));
  return r.Add(Op::kAdd, {out, b});
}

}  // namespace

absl::StatusOr<bool> ConvAffineFold(Graph& graph, PassContext& context) {
  const std::vector<std::vector<NodeId>> users = graph.ComputeUsers();
  std::vector<bool> is_output(graph.num_nodes(), false);
  for (NodeId out : graph.outputs()) is_output[out.value] = true;
  std::map<int32_t, Fold> by_last;  // the chain's last node -> its fold
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (graph.node(NodeId(i)).op != Op::kConv2d) continue;
    std::optional<Fold> fold = ChainAfter(graph, NodeId(i), users, is_output);
    if (fold) by_last.emplace(fold->last.value, std::move(*fold));
  }
  if (by_last.empty()) return false;
  return RewriteNodes(graph, [&](Rewriter& r, NodeId id) -> absl::StatusOr<std::optional<NodeId>> {
    auto it = by_last.find(id.value);
    if (it == by_last.end()) return std::nullopt;
    const Fold& fold = it->second;
    RK_ASSIGN_OR_RETURN(
        bool apply,
        context.ShouldApply(kPass, absl::StrCat(Describe(graph, id), ": ", fold.steps,
                                                " steps into ", Describe(graph, fold.conv))));
    if (!apply) return std::nullopt;
    RK_ASSIGN_OR_RETURN(NodeId folded, BuildFolded(r, fold));
    return folded;
  });
}

}  // namespace rk::compiler
