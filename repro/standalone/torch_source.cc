#include "repro/standalone/torch_source.h"

#include <cmath>
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

const std::map<std::string, std::string>& UnaryTable() {
  static const auto* t = new std::map<std::string, std::string>{
      {"neg", "torch.neg"},         {"abs", "torch.abs"},       {"exp", "torch.exp"},
      {"log", "torch.log"},         {"sqrt", "torch.sqrt"},     {"rsqrt", "torch.rsqrt"},
      {"reciprocal", "torch.reciprocal"}, {"tanh", "torch.tanh"}, {"sigmoid", "torch.sigmoid"},
      {"relu", "torch.relu"},       {"erf", "torch.erf"},       {"sin", "torch.sin"},
      {"cos", "torch.cos"},         {"floor", "torch.floor"},   {"ceil", "torch.ceil"},
      {"round", "torch.round"},     {"not", "torch.logical_not"}, {"gelu", "F.gelu"}};
  return *t;
}

const std::map<std::string, std::string>& BinaryTable() {
  static const auto* t = new std::map<std::string, std::string>{
      {"add", "torch.add"},         {"sub", "torch.sub"},       {"mul", "torch.mul"},
      {"maximum", "torch.maximum"}, {"minimum", "torch.minimum"}, {"eq", "torch.eq"},
      {"ne", "torch.ne"},           {"lt", "torch.lt"},         {"le", "torch.le"},
      {"gt", "torch.gt"},           {"ge", "torch.ge"},         {"and", "torch.logical_and"},
      {"or", "torch.logical_or"},   {"matmul", "torch.matmul"}, {"where", "torch.where"}};
  return *t;
}

std::string DTypeExpr(DType d) {
  return absl::StrCat("DTYPES[\"", std::string(compiler::DTypeName(d)), "\"]");
}

std::string FloatLiteral(double v) {
  if (std::isnan(v)) return "math.nan";
  if (std::isinf(v)) return v > 0 ? "math.inf" : "-math.inf";
  return absl::StrFormat("%.17g", v);
}

// A float attribute as `cast` would convert it to `dtype`.
std::string ScalarAs(double v, DType dtype) {
  if (compiler::IsFloat(dtype)) return FloatLiteral(v);
  if (dtype == DType::kBool) return v != 0 ? "True" : "False";
  if (!std::isfinite(v)) return "0";
  return absl::StrCat(static_cast<int64_t>(std::trunc(v)));
}

std::string IntList(const std::vector<int64_t>& v) { return "[" + absl::StrJoin(v, ", ") + "]"; }

std::string Bool(bool b) { return b ? "True" : "False"; }

class Emitter {
 public:
  explicit Emitter(const Graph& graph) : graph_(graph) {}

  absl::StatusOr<TorchSource> Run() {
    TorchSource out;
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
      absl::StrAppend(&body, "        ", Var(id), " = ", *expr, "  # %",
                      graph_.DisplayName(id), " = ", std::string(compiler::OpName(node.op)), "\n");
    }
    std::vector<std::string> results;
    for (NodeId o : graph_.outputs()) results.push_back(Var(o));
    out.make_graph = absl::StrCat(
        "\n\ndef make_graph(device, consts):\n"
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
    return absl::InvalidArgumentError(absl::StrCat("node %", graph_.DisplayName(id), " (",
                                                   std::string(compiler::OpName(graph_.node(id).op)),
                                                   "): no torch form: ", why));
  }

  absl::StatusOr<std::string> Expr(NodeId id, const Node& node) const {
    const std::string op(compiler::OpName(node.op));
    std::vector<std::string> a;
    for (NodeId o : node.operands) a.push_back(Var(o));
    const DType operand =
        node.operands.empty() ? node.type.dtype : graph_.type(node.operands[0]).dtype;
    const bool is_int = compiler::IsInteger(operand);
    const compiler::Attributes& at = node.attrs;
    const std::string shape = IntList(node.type.shape.dims());
    auto ints = [&](const char* name) -> absl::StatusOr<std::string> {
      absl::StatusOr<std::vector<int64_t>> v = at.GetInts(name);
      if (!v.ok()) return Error(id, v.status().message());
      return IntList(*v);
    };
    auto integer = [&](const char* name, int64_t fallback) {
      absl::StatusOr<int64_t> v = at.GetInt(name);
      return absl::StrCat(v.ok() ? *v : fallback);
    };
    auto flag = [&](const char* name) {
      absl::StatusOr<bool> v = at.GetBool(name);
      return Bool(v.ok() && *v);
    };
    auto number = [&](const char* name, double fallback) {
      absl::StatusOr<double> v = at.GetFloat(name);
      return v.ok() ? *v : fallback;
    };
    if (auto it = UnaryTable().find(op); it != UnaryTable().end()) {
      return absl::StrCat(it->second, "(", a[0], ")");
    }
    if (auto it = BinaryTable().find(op); it != BinaryTable().end()) {
      return absl::StrCat(it->second, "(", absl::StrJoin(a, ", "), ")");
    }
    if (op == "full") {
      return absl::StrCat("torch.full(", shape, ", ", ScalarAs(number("value", 0), node.type.dtype),
                          ", dtype=", DTypeExpr(node.type.dtype), ", device=device)");
    }
    if (op == "iota") {
      return absl::StrCat("rk_iota(", shape, ", ", integer("axis", 0), ", ",
                          DTypeExpr(node.type.dtype), ", device)");
    }
    if (op == "clip") {
      const std::string lo = at.Has("min") ? ScalarAs(number("min", 0), operand) : "None";
      const std::string hi = at.Has("max") ? ScalarAs(number("max", 0), operand) : "None";
      return absl::StrCat("rk_clip(", a[0], ", ", lo, ", ", hi, ")");
    }
    if (op == "div") return absl::StrCat(is_int ? "rk_int_div(" : "torch.div(", a[0], ", ", a[1], ")");
    if (op == "pow") return absl::StrCat(is_int ? "rk_int_pow(" : "torch.pow(", a[0], ", ", a[1], ")");
    if (op == "mod") {
      return absl::StrCat(is_int ? "rk_int_mod(" : "rk_float_mod(", a[0], ", ", a[1], ")");
    }
    if (op == "floordiv") {
      return absl::StrCat(is_int ? "rk_int_floordiv(" : "rk_float_floordiv(", a[0], ", ", a[1],
                          ")");
    }
    if (op == "cast") {
      return absl::StrCat("rk_cast(", a[0], ", ", DTypeExpr(node.type.dtype), ", ",
                          Bool(compiler::IsInteger(node.type.dtype)), ")");
    }
    if (op == "reduce_sum" || op == "reduce_mean" || op == "reduce_max" || op == "reduce_min") {
      absl::StatusOr<std::string> axes = ints("axes");
      if (!axes.ok()) return axes.status();
      return absl::StrCat("rk_reduce(", a[0], ", \"", op.substr(7), "\", ", *axes, ", ",
                          flag("keepdim"), ")");
    }
    if (op == "argmax") {
      return absl::StrCat("torch.argmax(", a[0], ", dim=", integer("axis", 0),
                          ", keepdim=", flag("keepdim"), ")");
    }
    if (op == "cumsum") {
      return absl::StrCat("rk_cumsum(", a[0], ", ", integer("axis", 0), ", ", flag("exclusive"),
                          ", ", flag("reverse"), ")");
    }
    if (op == "reshape" || op == "squeeze" || op == "unsqueeze") {
      return absl::StrCat("torch.reshape(", a[0], ", ", shape, ")");
    }
    if (op == "transpose") {
      absl::StatusOr<std::string> perm = ints("perm");
      if (!perm.ok()) return perm.status();
      return absl::StrCat("torch.permute(", a[0], ", ", *perm, ")");
    }
    if (op == "broadcast_to") return absl::StrCat("torch.broadcast_to(", a[0], ", ", shape, ")");
    if (op == "slice") {
      absl::StatusOr<std::string> start = ints("start"), limit = ints("limit"),
                                  stride = ints("stride");
      if (!start.ok()) return start.status();
      if (!limit.ok()) return limit.status();
      if (!stride.ok()) return stride.status();
      return absl::StrCat("rk_slice(", a[0], ", ", *start, ", ", *limit, ", ", *stride, ")");
    }
    if (op == "concat") {
      return absl::StrCat("torch.cat([", absl::StrJoin(a, ", "), "], dim=", integer("axis", 0),
                          ")");
    }
    if (op == "pad") {
      absl::StatusOr<std::string> pads = ints("pads");
      if (!pads.ok()) return pads.status();
      return absl::StrCat("rk_pad(", a[0], ", ", *pads, ", ",
                          ScalarAs(number("value", 0), node.type.dtype), ")");
    }
    if (op == "gather") {
      return absl::StrCat("rk_gather(", a[0], ", ", a[1], ", ", integer("axis", 0), ")");
    }
    if (op == "softmax" || op == "log_softmax") {
      return absl::StrCat("torch.", op, "(", a[0], ", dim=", integer("axis", -1), ")");
    }
    if (op == "layer_norm") {
      return absl::StrCat("F.layer_norm(", a[0], ", (", a[0], ".shape[-1],), ", a[1], ", ", a[2],
                          ", ", FloatLiteral(number("eps", 1e-5)), ")");
    }
    if (op == "rms_norm") {
      return absl::StrCat("rk_rms_norm(", a[0], ", ", a[1], ", ",
                          FloatLiteral(number("eps", 1e-6)), ")");
    }
    if (op == "conv2d" || op == "max_pool2d" || op == "avg_pool2d") {
      std::vector<std::string> args = a;
      for (const char* name : op == "conv2d"       ? std::vector<const char*>{"strides", "pads",
                                                                             "dilations"}
                              : op == "max_pool2d" ? std::vector<const char*>{"kernel", "strides",
                                                                              "pads", "dilations"}
                                                   : std::vector<const char*>{"kernel", "strides",
                                                                              "pads"}) {
        absl::StatusOr<std::string> v = ints(name);
        if (!v.ok()) return v.status();
        args.push_back(*v);
      }
      if (op == "conv2d") args.push_back(integer("groups", 1));
      if (op == "avg_pool2d") args.push_back(flag("count_include_pad"));
      return absl::StrCat("rk_", op, "(", absl::StrJoin(args, ", "), ")");
    }
    return Error(id, "not in the table of repro/standalone/torch_source.cc");
  }

  const Graph& graph_;
};

}  // namespace

absl::StatusOr<TorchSource> GraphAsTorch(const Graph& graph) { return Emitter(graph).Run(); }

}  // namespace rk::repro
