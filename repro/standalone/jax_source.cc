#include "repro/standalone/jax_source.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/op.h"

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
std::string DTypeExpr(DType d) { return absl::StrCat("DTYPES[\"", DTypeText(d), "\"]"); }

std::string FloatLiteral(double v) {
  if (std::isnan(v)) return "math.nan";
  if (std::isinf(v)) return v > 0 ? "math.inf" : "-math.inf";
  return absl::StrFormat("%.17g", v);
}

// A float attribute as `cast` converts it to `dtype`: integers truncate and
// wrap (NaN/Inf -> 0), bool is v != 0.
std::string ScalarAs(double v, DType dtype) {
  if (compiler::IsFloat(dtype)) return FloatLiteral(v);
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

std::string IntList(const std::vector<int64_t>& v) { return "[" + absl::StrJoin(v, ", ") + "]"; }
std::string Bool(bool b) { return b ? "True" : "False"; }

class Emitter {
 public:
  explicit Emitter(const Graph& graph) : graph_(graph) {}

  absl::StatusOr<JaxSource> Run() {
    JaxSource out;
    std::vector<std::string> params;
    std::string body;
    for (int i = 0; i < graph_.num_nodes(); ++i) {
      const NodeId id{i};
      const Node& node = graph_.node(id);
      if (node.op == compiler::Op::kInput) {
        params.push_back(Var(id));
        continue;
      }
      if (node.op == compiler::Op::kConstant) {
        absl::StatusOr<compiler::HostTensor> value = node.attrs.GetTensor("value");
        if (!value.ok()) return Error(id, value.status().message());
        out.constants.emplace_back(i, *std::move(value));
        absl::StrAppend(&body, "        ", Var(id), " = consts[", i, "]\n");
        continue;
      }
      absl::StatusOr<std::string> expr = Expr(id, node);
      if (!expr.ok()) return expr.status();
      absl::StrAppend(&body, "        ", Var(id), " = ", *expr, "  # %", graph_.DisplayName(id),
                      " = ", std::string(compiler::OpName(node.op)), "\n");
    }
    std::vector<std::string> results;
    for (NodeId o : graph_.outputs()) results.push_back(Var(o));
    out.make_graph = absl::StrCat(
        "\n\ndef make_graph(consts, planted):\n"
        "    \"\"\"The graph @", graph_.name(), ": one line per node.\"\"\"\n\n"
        "    def graph(", absl::StrJoin(params, ", "), "):\n", body,
        "        return (", absl::StrJoin(results, ", "), results.size() == 1 ? ",)\n" : ")\n",
        "\n    return graph\n");
    return out;
  }

 private:
  std::string Var(NodeId id) const {
    const Node& n = graph_.node(id);
    std::string name;
    for (char c : n.name) name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return name.empty() ? absl::StrCat("v", id.value) : absl::StrCat("v", id.value, "_", name);
  }

  absl::Status Error(NodeId id, absl::string_view why) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "node %", graph_.DisplayName(id), " (", std::string(compiler::OpName(graph_.node(id).op)),
        "): no jax form: ", why));
  }

  // The attributes' Python text, or the error naming the node.
  absl::StatusOr<std::string> Ints(NodeId id, const char* name) const {
    absl::StatusOr<std::vector<int64_t>> v = graph_.node(id).attrs.GetInts(name);
    if (!v.ok()) return Error(id, v.status().message());
    return IntList(*v);
  }
  std::string Int(NodeId id, const char* name, int64_t fallback) const {
    absl::StatusOr<int64_t> v = graph_.node(id).attrs.GetInt(name);
    return absl::StrCat(v.ok() ? *v : fallback);
  }
  std::string Flag(NodeId id, const char* name) const {
    absl::StatusOr<bool> v = graph_.node(id).attrs.GetBool(name);
    return Bool(v.ok() && *v);
  }
  double Number(NodeId id, const char* name, double fallback) const {
    absl::StatusOr<double> v = graph_.node(id).attrs.GetFloat(name);
    return v.ok() ? *v : fallback;
  }

  // `callee(args..., the int-list attributes named, extra)`.
  absl::StatusOr<std::string> Call(NodeId id, const std::string& callee,
                                   std::vector<std::string> args,
                                   const std::vector<const char*>& int_lists,
                                   const std::string& extra = "") const {
    for (const char* name : int_lists) {
      absl::StatusOr<std::string> v = Ints(id, name);
      if (!v.ok()) return v.status();
      args.push_back(*v);
    }
    if (!extra.empty()) args.push_back(extra);
    return absl::StrCat(callee, "(", absl::StrJoin(args, ", "), ")");
  }

  absl::StatusOr<std::string> Expr(NodeId id, const Node& node) const {
    const std::string op(compiler::OpName(node.op));
    std::vector<std::string> a;
    for (NodeId o : node.operands) a.push_back(Var(o));
    const DType operand =
        node.operands.empty() ? node.type.dtype : graph_.type(node.operands[0]).dtype;
    const bool is_int = compiler::IsInteger(operand);
    const std::string shape = IntList(node.type.shape.dims());
    if (op == "relu") return absl::StrCat("rk_relu(", a[0], ", planted)");
    if (op == "gather") return Call(id, "rk_gather", a, {}, Int(id, "axis", 0));
    if (auto it = CallTable().find(op); it != CallTable().end()) return Call(id, it->second, a, {});
    if (op == "full") {
      return absl::StrCat("jnp.full(", shape, ", ", ScalarAs(Number(id, "value", 0), node.type.dtype),
                          ", ", DTypeExpr(node.type.dtype), ")");
    }
    if (op == "iota") {
      return absl::StrCat("rk_iota(", shape, ", ", Int(id, "axis", 0), ", ",
                          DTypeExpr(node.type.dtype), ")");
    }
    if (op == "clip") {
      const std::string lo = node.attrs.Has("min") ? ScalarAs(Number(id, "min", 0), operand) : "None";
      const std::string hi = node.attrs.Has("max") ? ScalarAs(Number(id, "max", 0), operand) : "None";
      return absl::StrCat("rk_clip(", a[0], ", ", lo, ", ", hi, ")");
    }
    if (op == "div") return Call(id, is_int ? "rk_int_div" : "jnp.divide", a, {});
    if (op == "mod") return Call(id, is_int ? "rk_int_mod" : "rk_float_mod", a, {});
    if (op == "floordiv") return Call(id, is_int ? "rk_int_floordiv" : "rk_float_floordiv", a, {});
    if (op == "cast") {
      return absl::StrCat("rk_cast(", a[0], ", \"", DTypeText(operand), "\", \"",
                          DTypeText(node.type.dtype), "\")");
    }
    if (op == "reduce_sum" || op == "reduce_mean" || op == "reduce_max" || op == "reduce_min") {
      return Call(id, "rk_reduce", {a[0], absl::StrCat("\"", op.substr(7), "\"")}, {"axes"},
                  Flag(id, "keepdim"));
    }
    if (op == "argmax") {
      return absl::StrCat("rk_argmax(", a[0], ", ", Int(id, "axis", 0), ", ", Flag(id, "keepdim"),
                          ")");
    }
    if (op == "cumsum") {
      return absl::StrCat("rk_cumsum(", a[0], ", ", Int(id, "axis", 0), ", ",
                          Flag(id, "exclusive"), ", ", Flag(id, "reverse"), ")");
    }
    if (op == "reshape" || op == "squeeze" || op == "unsqueeze") {
      return absl::StrCat("jnp.reshape(", a[0], ", ", shape, ")");
    }
    if (op == "transpose") return Call(id, "jnp.transpose", a, {"perm"});
    if (op == "broadcast_to") return absl::StrCat("jnp.broadcast_to(", a[0], ", ", shape, ")");
    if (op == "slice") return Call(id, "rk_slice", a, {"start", "limit", "stride"});
    if (op == "concat") {
      return absl::StrCat("jnp.concatenate([", absl::StrJoin(a, ", "), "], axis=",
                          Int(id, "axis", 0), ")");
    }
    if (op == "pad") {
      return Call(id, "rk_pad", a, {"pads"}, ScalarAs(Number(id, "value", 0), node.type.dtype));
    }
    if (op == "softmax" || op == "log_softmax") {
      return absl::StrCat("jax.nn.", op, "(", a[0], ", axis=", Int(id, "axis", -1), ")");
    }
    if (op == "layer_norm" || op == "rms_norm") {
      return Call(id, "rk_" + op, a, {}, FloatLiteral(Number(id, "eps", 1e-5)));
    }
    if (op == "conv2d") {
      return Call(id, "rk_conv2d", a, {"strides", "pads", "dilations"}, Int(id, "groups", 1));
    }
    if (op == "max_pool2d") {
      return Call(id, "rk_max_pool2d", a, {"kernel", "strides", "pads", "dilations"});
    }
    if (op == "avg_pool2d") {
      return Call(id, "rk_avg_pool2d", a, {"kernel", "strides", "pads"},
                  Flag(id, "count_include_pad"));
    }
    return Error(id, "not in the table of repro/standalone/jax_source.cc");
  }

  const Graph& graph_;
};

}  // namespace

absl::StatusOr<JaxSource> GraphAsJax(const Graph& graph) { return Emitter(graph).Run(); }

}  // namespace rk::repro
