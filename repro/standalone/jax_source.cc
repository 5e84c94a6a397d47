#include "repro/standalone/jax_source.h"

#include <cmath>
#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/op.h"
#include "repro/standalone/python_graph.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::Graph;
using compiler::Node;
using compiler::NodeId;

// Ops that are one call of their operands, in order.
const std::map<std::string, std::string>& CallTable() {
  static const auto* t = new std::map<std::string, std::string>{
      {"neg", "jnp.negative"},     {"abs", "jnp.abs"},           {"exp", "jnp.exp"},
      {"log", "jnp.log"},          {"sqrt", "jnp.sqrt"},         {"rsqrt", "lax.rsqrt"},
      {"reciprocal", "jnp.reciprocal"}, {"tanh", "jnp.tanh"},    {"sigmoid", "jax.nn.sigmoid"},
      {"erf", "lax.erf"},          {"sin", "jnp.sin"},           {"cos", "jnp.cos"},
      {"floor", "lax.floor"},      {"ceil", "lax.ceil"},         {"round", "rk_round"},
      {"not", "jnp.logical_not"},  {"gelu", "rk_gelu"},          {"add", "jnp.add"},
      {"sub", "jnp.subtract"},     {"mul", "jnp.multiply"},      {"maximum", "jnp.maximum"},
      {"minimum", "jnp.minimum"},  {"eq", "jnp.equal"},          {"ne", "jnp.not_equal"},
      {"lt", "jnp.less"},          {"le", "jnp.less_equal"},     {"gt", "jnp.greater"},
      {"ge", "jnp.greater_equal"}, {"and", "jnp.logical_and"},   {"or", "jnp.logical_or"},
      {"pow", "jnp.power"},        {"matmul", "jnp.matmul"},     {"where", "jnp.where"},
      {"gather", "rk_gather"}};
  return *t;
}

std::string DTypeText(DType d) { return std::string(compiler::DTypeName(d)); }

// A float attribute as `cast` converts it to `dtype`: integers truncate and
// wrap (NaN/Inf -> 0), bool is v != 0.
std::string ScalarAs(double v, DType dtype) {
  if (compiler::IsFloat(dtype)) return PythonFloat(v);
  if (dtype == DType::kBool) return v != 0 ? "True" : "False";
  if (!std::isfinite(v)) return "0";
  double t = std::fmod(std::trunc(v), 18446744073709551616.0);
  if (t >= 9223372036854775808.0) t -= 18446744073709551616.0;
  if (t < -9223372036854775808.0) t += 18446744073709551616.0;
  const int64_t wide = static_cast<int64_t>(t);
  if (dtype == DType::kI32) {
    return absl::StrCat(static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(wide))));
  }
  return absl::StrCat(wide);
}

// `callee(args..., the int-list attributes named, extra)`.
absl::StatusOr<std::string> Call(const PythonAttrs& attrs, const std::string& callee,
                                 std::vector<std::string> args,
                                 const std::vector<const char*>& int_lists,
                                 const std::string& extra = "") {
  for (const char* name : int_lists) {
    absl::StatusOr<std::string> v = attrs.Ints(name);
    if (!v.ok()) return v.status();
    args.push_back(*v);
  }
  if (!extra.empty()) args.push_back(extra);
  return absl::StrCat(callee, "(", absl::StrJoin(args, ", "), ")");
}

// The jax text of node `id` (neither input nor constant).
absl::StatusOr<std::string> Expr(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  const PythonAttrs attrs(graph, id, "jax");
  const std::string op(compiler::OpName(node.op));
  std::vector<std::string> a;
  for (NodeId o : node.operands) a.push_back(PythonVar(graph, o));
  const DType operand =
      node.operands.empty() ? node.type.dtype : graph.type(node.operands[0]).dtype;
  const bool is_int = compiler::IsInteger(operand);
  const std::string shape = PythonIntList(node.type.shape.dims());
  if (op == "relu") return absl::StrCat("rk_relu(", a[0], ", planted)");
  if (op == "gather") return Call(attrs, "rk_gather", a, {}, attrs.Int("axis", 0));
  if (auto it = CallTable().find(op); it != CallTable().end()) {
    return Call(attrs, it->second, a, {});
  }
  if (op == "full") {
    return absl::StrCat("jnp.full(", shape, ", ",
                        ScalarAs(attrs.Number("value", 0), node.type.dtype), ", ",
                        PythonDType(node.type.dtype), ")");
  }
  if (op == "iota") {
    return absl::StrCat("rk_iota(", shape, ", ", attrs.Int("axis", 0), ", ",
                        PythonDType(node.type.dtype), ")");
  }
  if (op == "clip") {
    const std::string lo =
        node.attrs.Has("min") ? ScalarAs(attrs.Number("min", 0), operand) : "None";
    const std::string hi =
        node.attrs.Has("max") ? ScalarAs(attrs.Number("max", 0), operand) : "None";
    return absl::StrCat("rk_clip(", a[0], ", ", lo, ", ", hi, ")");
  }
  if (op == "div") return Call(attrs, is_int ? "rk_int_div" : "jnp.divide", a, {});
  if (op == "mod") return Call(attrs, is_int ? "rk_int_mod" : "rk_float_mod", a, {});
  if (op == "floordiv") return Call(attrs, is_int ? "rk_int_floordiv" : "rk_float_floordiv", a, {});
  if (op == "cast") {
    return absl::StrCat("rk_cast(", a[0], ", \"", DTypeText(operand), "\", \"",
                        DTypeText(node.type.dtype), "\")");
  }
  if (op == "reduce_sum" || op == "reduce_mean" || op == "reduce_max" || op == "reduce_min") {
    return Call(attrs, "rk_reduce", {a[0], absl::StrCat("\"", op.substr(7), "\"")}, {"axes"},
                attrs.Flag("keepdim"));
  }
  if (op == "argmax") {
    return absl::StrCat("rk_argmax(", a[0], ", ", attrs.Int("axis", 0), ", ", attrs.Flag("keepdim"),
                        ")");
  }
  if (op == "cumsum") {
    return absl::StrCat("rk_cumsum(", a[0], ", ", attrs.Int("axis", 0), ", ",
                        attrs.Flag("exclusive"), ", ", attrs.Flag("reverse"), ")");
  }
  if (op == "reshape" || op == "squeeze" || op == "unsqueeze") {
    return absl::StrCat("jnp.reshape(", a[0], ", ", shape, ")");
  }
  if (op == "transpose") return Call(attrs, "jnp.transpose", a, {"perm"});
  if (op == "broadcast_to") return absl::StrCat("jnp.broadcast_to(", a[0], ", ", shape, ")");
  if (op == "slice") return Call(attrs, "rk_slice", a, {"start", "limit", "stride"});
  if (op == "concat") {
    return absl::StrCat("jnp.concatenate([", absl::StrJoin(a, ", "),
                        "], axis=", attrs.Int("axis", 0), ")");
  }
  if (op == "pad") {
    return Call(attrs, "rk_pad", a, {"pads"}, ScalarAs(attrs.Number("value", 0), node.type.dtype));
  }
  if (op == "softmax" || op == "log_softmax") {
    return absl::StrCat("jax.nn.", op, "(", a[0], ", axis=", attrs.Int("axis", -1), ")");
  }
  if (op == "layer_norm" || op == "rms_norm") {
    return Call(attrs, "rk_" + op, a, {}, PythonFloat(attrs.Number("eps", 1e-5)));
  }
  if (op == "conv2d") {
    return Call(attrs, "rk_conv2d", a, {"strides", "pads", "dilations"}, attrs.Int("groups", 1));
  }
  if (op == "max_pool2d") {
    return Call(attrs, "rk_max_pool2d", a, {"kernel", "strides", "pads", "dilations"});
  }
  if (op == "avg_pool2d") {
    return Call(attrs, "rk_avg_pool2d", a, {"kernel", "strides", "pads"},
                attrs.Flag("count_include_pad"));
  }
  return PythonNoForm(graph, id, "jax", "not in the table of repro/standalone/jax_source.cc");
}

}  // namespace

absl::StatusOr<JaxSource> GraphAsJax(const Graph& graph) {
  return GraphAsPython(graph, "consts, planted", "jax",
                       [&graph](NodeId id) { return Expr(graph, id); });
}

}  // namespace rk::repro
