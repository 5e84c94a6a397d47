#include "repro/standalone/torch_source.h"

#include <cmath>
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

// A float attribute as `cast` would convert it to `dtype`.
std::string ScalarAs(double v, DType dtype) {
  if (compiler::IsFloat(dtype)) return PythonFloat(v);
  if (dtype == DType::kBool) return v != 0 ? "True" : "False";
  if (!std::isfinite(v)) return "0";
  return absl::StrCat(static_cast<int64_t>(std::trunc(v)));
}

// The torch text of node `id` (neither input nor constant).
absl::StatusOr<std::string> Expr(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  const std::string op(compiler::OpName(node.op));
  std::vector<std::string> a;
  for (NodeId o : node.operands) a.push_back(PythonVar(graph, o));
  const DType operand =
      node.operands.empty() ? node.type.dtype : graph.type(node.operands[0]).dtype;
  const bool is_int = compiler::IsInteger(operand);
  const std::string shape = PythonIntList(node.type.shape.dims());
  const PythonAttrs attrs(graph, id, "torch");
  if (auto it = UnaryTable().find(op); it != UnaryTable().end()) {
    return absl::StrCat(it->second, "(", a[0], ")");
  }
  if (auto it = BinaryTable().find(op); it != BinaryTable().end()) {
    return absl::StrCat(it->second, "(", absl::StrJoin(a, ", "), ")");
  }
  if (op == "full") {
    return absl::StrCat("torch.full(", shape, ", ",
                        ScalarAs(attrs.Number("value", 0), node.type.dtype),
                        ", dtype=", PythonDType(node.type.dtype), ", device=device)");
  }
  if (op == "iota") {
    return absl::StrCat("rk_iota(", shape, ", ", attrs.Int("axis", 0), ", ",
                        PythonDType(node.type.dtype), ", device)");
  }
  if (op == "clip") {
    const std::string lo =
        node.attrs.Has("min") ? ScalarAs(attrs.Number("min", 0), operand) : "None";
    const std::string hi =
        node.attrs.Has("max") ? ScalarAs(attrs.Number("max", 0), operand) : "None";
    return absl::StrCat("rk_clip(", a[0], ", ", lo, ", ", hi, ")");
  }
  if (op == "div")
    return absl::StrCat(is_int ? "rk_int_div(" : "torch.div(", a[0], ", ", a[1], ")");
  if (op == "pow")
    return absl::StrCat(is_int ? "rk_int_pow(" : "torch.pow(", a[0], ", ", a[1], ")");
  if (op == "mod") {
    return absl::StrCat(is_int ? "rk_int_mod(" : "rk_float_mod(", a[0], ", ", a[1], ")");
  }
  if (op == "floordiv") {
    return absl::StrCat(is_int ? "rk_int_floordiv(" : "rk_float_floordiv(", a[0], ", ", a[1], ")");
  }
  if (op == "cast") {
    return absl::StrCat("rk_cast(", a[0], ", ", PythonDType(node.type.dtype), ", ",
                        PythonBool(compiler::IsInteger(node.type.dtype)), ")");
  }
  if (op == "reduce_sum" || op == "reduce_mean" || op == "reduce_max" || op == "reduce_min") {
    absl::StatusOr<std::string> axes = attrs.Ints("axes");
    if (!axes.ok()) return axes.status();
    return absl::StrCat("rk_reduce(", a[0], ", \"", op.substr(7), "\", ", *axes, ", ",
                        attrs.Flag("keepdim"), ")");
  }
  if (op == "argmax") {
    return absl::StrCat("torch.argmax(", a[0], ", dim=", attrs.Int("axis", 0),
                        ", keepdim=", attrs.Flag("keepdim"), ")");
  }
  if (op == "cumsum") {
    return absl::StrCat("rk_cumsum(", a[0], ", ", attrs.Int("axis", 0), ", ",
                        attrs.Flag("exclusive"), ", ", attrs.Flag("reverse"), ")");
  }
  if (op == "reshape" || op == "squeeze" || op == "unsqueeze") {
    return absl::StrCat("torch.reshape(", a[0], ", ", shape, ")");
  }
  if (op == "transpose") {
    absl::StatusOr<std::string> perm = attrs.Ints("perm");
    if (!perm.ok()) return perm.status();
    return absl::StrCat("torch.permute(", a[0], ", ", *perm, ")");
  }
  if (op == "broadcast_to") return absl::StrCat("torch.broadcast_to(", a[0], ", ", shape, ")");
  if (op == "slice") {
    absl::StatusOr<std::string> start = attrs.Ints("start"), limit = attrs.Ints("limit"),
                                stride = attrs.Ints("stride");
    if (!start.ok()) return start.status();
    if (!limit.ok()) return limit.status();
    if (!stride.ok()) return stride.status();
    return absl::StrCat("rk_slice(", a[0], ", ", *start, ", ", *limit, ", ", *stride, ")");
  }
  if (op == "concat") {
    return absl::StrCat("torch.cat([", absl::StrJoin(a, ", "), "], dim=", attrs.Int("axis", 0),
                        ")");
  }
  if (op == "pad") {
    absl::StatusOr<std::string> pads = attrs.Ints("pads");
    if (!pads.ok()) return pads.status();
    return absl::StrCat("rk_pad(", a[0], ", ", *pads, ", ",
                        ScalarAs(attrs.Number("value", 0), node.type.dtype), ")");
  }
  if (op == "gather") {
    return absl::StrCat("rk_gather(", a[0], ", ", a[1], ", ", attrs.Int("axis", 0), ")");
  }
  if (op == "softmax" || op == "log_softmax") {
    return absl::StrCat("torch.", op, "(", a[0], ", dim=", attrs.Int("axis", -1), ")");
  }
  if (op == "layer_norm") {
    return absl::StrCat("F.layer_norm(", a[0], ", (", a[0], ".shape[-1],), ", a[1], ", ", a[2],
                        ", ", PythonFloat(attrs.Number("eps", 1e-5)), ")");
  }
  if (op == "rms_norm") {
    return absl::StrCat("rk_rms_norm(", a[0], ", ", a[1], ", ",
                        PythonFloat(attrs.Number("eps", 1e-6)), ")");
  }
  if (op == "conv2d" || op == "max_pool2d" || op == "avg_pool2d") {
    std::vector<std::string> args = a;
    for (const char* name :
         op == "conv2d"       ? std::vector<const char*>{"strides", "pads", "dilations"}
         : op == "max_pool2d" ? std::vector<const char*>{"kernel", "strides", "pads", "dilations"}
                              : std::vector<const char*>{"kernel", "strides", "pads"}) {
      absl::StatusOr<std::string> v = attrs.Ints(name);
      if (!v.ok()) return v.status();
      args.push_back(*v);
    }
    if (op == "conv2d") args.push_back(attrs.Int("groups", 1));
    if (op == "avg_pool2d") args.push_back(attrs.Flag("count_include_pad"));
    return absl::StrCat("rk_", op, "(", absl::StrJoin(args, ", "), ")");
  }
  return PythonNoForm(graph, id, "torch", "not in the table of repro/standalone/torch_source.cc");
}

}  // namespace

absl::StatusOr<TorchSource> GraphAsTorch(const Graph& graph) {
  return GraphAsPython(graph, "device, consts", "torch",
                       [&graph](NodeId id) { return Expr(graph, id); });
}

}  // namespace rk::repro
