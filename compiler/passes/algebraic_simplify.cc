#include "compiler/passes/algebraic_simplify.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/passes/rewriter.h"

namespace rk::compiler {
namespace {

constexpr char kPass[] = "algebraic_simplify";

// A matched rule: its text (for the application log) and how to build the
// replacement in the new graph.
struct Match {
  const char* rule;
  std::function<absl::StatusOr<NodeId>(Rewriter&)> build;
};

Match Existing(const char* rule, NodeId id) {
  return {rule, [id](Rewriter&) -> absl::StatusOr<NodeId> { return id; }};
}

Match Zeros(const char* rule, const TensorType& type) {
  return {rule, [type](Rewriter& r) { return r.builder().Full(type, 0.0); }};
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// Whether every element of `id` is exactly `value` (bitwise: -0.0 != 0.0).
bool IsSplat(const Graph& g, NodeId id, double value) {
  std::optional<double> splat = SplatValue(g, id);
  return splat.has_value() && SameBits(*splat, value);
}

// Whether B holds every value of A exactly, so cast A -> B -> A is the identity.
bool HoldsExactly(DType wide, DType narrow) {
  switch (narrow) {
    case DType::kBool: return wide != DType::kBool;
    case DType::kF16:
    case DType::kBF16: return wide == DType::kF32 || wide == DType::kF64;
    case DType::kF32: return wide == DType::kF64;
    case DType::kI32: return wide == DType::kI64 || wide == DType::kF64;
    default: return false;
  }
}

std::optional<Match> MatchAddSub(const Graph& g, const Node& node, NodeId a, NodeId b,
                                 bool fast) {
  const bool is_int = IsInteger(node.type.dtype);
  const bool is_add = node.op == Op::kAdd;
  // x + -0.0 and x - +0.0 are x for every float x; the other zero is not (-0.0).
  const double exact_zero = is_add ? -0.0 : 0.0;
  const double fast_zero = is_add ? 0.0 : -0.0;
  std::vector<std::pair<NodeId, NodeId>> orders = {{a, b}};
  if (is_add) orders.push_back({b, a});
  for (auto [x, c] : orders) {
    if (g.type(x) != node.type) continue;
    if (IsSplat(g, c, exact_zero) || (is_int && IsSplat(g, c, 0.0))) {
      return Existing(is_add ? "x+(-0) -> x" : "x-0 -> x", x);
    }
    if (fast && IsSplat(g, c, fast_zero)) return Existing(is_add ? "x+0 -> x" : "x-(-0) -> x", x);
  }
  if (!is_add && a == b && (is_int || fast)) return Zeros("x-x -> 0", node.type);
  return std::nullopt;
}

std::optional<Match> MatchMulDiv(const Graph& g, const Node& node, NodeId a, NodeId b,
                                 bool fast) {
  const bool is_int = IsInteger(node.type.dtype);
  if (node.op == Op::kDiv) {
    if (g.type(a) == node.type && IsSplat(g, b, 1.0)) return Existing("x/1 -> x", a);
    std::optional<double> c = SplatValue(g, b);
    if (!fast || is_int || !c.has_value() || *c == 0 || !std::isfinite(*c)) return std::nullopt;
    const TensorType c_type = g.type(b);
    const double inverse = 1.0 / *c;
    return Match{"x/c -> x*(1/c)", [a, c_type, inverse](Rewriter& r) -> absl::StatusOr<NodeId> {
                   RK_ASSIGN_OR_RETURN(NodeId inv, r.builder().Full(c_type, inverse));
                   return r.builder().Binary(Op::kMul, a, inv);
                 }};
  }
  for (auto [x, c] : {std::pair(a, b), std::pair(b, a)}) {
    if (g.type(x) == node.type && IsSplat(g, c, 1.0)) return Existing("x*1 -> x", x);
    if ((is_int || fast) && (IsSplat(g, c, 0.0) || IsSplat(g, c, -0.0))) {
      return Zeros("x*0 -> 0", node.type);
    }
  }
  return std::nullopt;
}

std::optional<Match> MatchUnary(const Graph& g, const Node& node, NodeId x, bool fast) {
  const Node& producer = g.node(x);
  const Op inner = producer.op;
  const NodeId inner_x = producer.operands.empty() ? NodeId() : producer.operands[0];
  switch (node.op) {
    case Op::kNeg:
      if (inner == Op::kNeg) return Existing("neg(neg(x)) -> x", inner_x);
      break;
    case Op::kAbs:
      if (inner == Op::kAbs) return Existing("abs(abs(x)) -> abs(x)", x);
      if (inner == Op::kNeg) {
        return Match{"abs(neg(x)) -> abs(x)",
                     [inner_x](Rewriter& r) { return r.builder().Unary(Op::kAbs, inner_x); }};
      }
      break;
    case Op::kRelu:
      if (inner == Op::kRelu) return Existing("relu(relu(x)) -> relu(x)", x);
      break;
    case Op::kExp:
      if (fast && inner == Op::kLog) return Existing("exp(log(x)) -> x", inner_x);
      break;
    case Op::kLog:
      if (fast && inner == Op::kExp) return Existing("log(exp(x)) -> x", inner_x);
      break;
    case Op::kCast:
      if (inner == Op::kCast && g.type(inner_x) == node.type &&
          HoldsExactly(producer.type.dtype, node.type.dtype)) {
        return Existing("cast(cast(x)) -> x", inner_x);
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

std::optional<Match> MatchNode(const Graph& g, const Node& node, const std::vector<NodeId>& in,
                               bool fast) {
  switch (node.op) {
    case Op::kAdd:
    case Op::kSub:
      return MatchAddSub(g, node, in[0], in[1], fast);
    case Op::kMul:
    case Op::kDiv:
      return MatchMulDiv(g, node, in[0], in[1], fast);
    default:
      if (in.size() == 1 && GetOpKind(node.op) != OpKind::kLayout &&
          GetOpKind(node.op) != OpKind::kReduce) {
        return MatchUnary(g, node, in[0], fast);
      }
      return std::nullopt;
  }
}

}  // namespace

absl::StatusOr<bool> AlgebraicSimplify(Graph& graph, PassContext& context) {
  const bool fast = context.options().fast_math;
  return RewriteNodes(graph, [&](Rewriter& r, NodeId id) -> absl::StatusOr<std::optional<NodeId>> {
    const Node& node = r.old_graph().node(id);
    std::optional<Match> match = MatchNode(r.new_graph(), node, r.MapOperands(id), fast);
    if (!match.has_value()) return std::nullopt;
    RK_ASSIGN_OR_RETURN(bool apply,
                        context.ShouldApply(kPass, absl::StrCat(Describe(r.old_graph(), id), ": ",
                                                                match->rule)));
    if (!apply) return std::nullopt;
    RK_ASSIGN_OR_RETURN(NodeId result, match->build(r));
    return result;
  });
}

}  // namespace rk::compiler
