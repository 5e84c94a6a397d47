#include "compiler/onnx/exporter.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "compiler/onnx/checker.h"
#include "compiler/onnx/export_dtypes.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/onnx_tensor.h"
#include "compiler/support/version.h"

namespace rk::compiler::onnx_io {
namespace {

class Exporter {
 public:
  explicit Exporter(const Graph& graph) : graph_(graph) {}

  absl::StatusOr<onnx::ModelProto> Run();

 private:
  std::string Fresh(const std::string& base) {
    std::string name = base;
    for (int k = 2; taken_.contains(name); ++k) name = absl::StrCat(base, "_", k);
    taken_.insert(name);
    return name;
  }
  // A new node; its outputs are {out} (or a fresh name when `out` is empty).
  onnx::NodeProto* Add(const std::string& op_type, std::vector<std::string> inputs,
                       const std::string& out) {
    onnx::NodeProto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op_type);
    n->set_name(out);
    for (std::string& i : inputs) n->add_input(std::move(i));
    n->add_output(out);
    return n;
  }
  // Helper value names derived from the current node's.
  std::string Temp(const std::string& suffix) { return Fresh(absl::StrCat(current_, ".", suffix)); }
  std::string Initializer(const HostTensor& t, const std::string& suffix) {
    std::string name = Temp(suffix);
    *model_.mutable_graph()->add_initializer() = TensorToProto(t, name);
    return name;
  }
  std::string Ints(const std::vector<int64_t>& values, const std::string& suffix) {
    HostTensor t(TensorType(DType::kI64, Shape({static_cast<int64_t>(values.size())})));
    for (size_t i = 0; i < values.size(); ++i) t.data<int64_t>()[i] = values[i];
    return Initializer(t, suffix);
  }
  std::string ScalarOf(DType dtype, double value, const std::string& suffix) {
    return Initializer(HostTensor::Full(TensorType(dtype, Shape()), value), suffix);
  }
  static void SetInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void SetFloat(onnx::NodeProto* n, const std::string& name, double v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(static_cast<float>(v));
  }
  static void SetInts(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  // A 0 in Reshape's shape copies the input's dim unless allowzero = 1
  // (opset 14): a target dim of size 0 needs it.
  static void AllowZero(onnx::NodeProto* n, const std::vector<int64_t>& shape) {
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) SetInt(n, "allowzero", 1);
  }
  static void SetTensor(onnx::NodeProto* n, const std::string& name, const HostTensor& t) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = TensorToProto(t, "");
  }
  absl::Status ExportNode(NodeId id);
  // Writes `node` computing in `type` (the node's own type, or its carrier
  // dtype: export_dtypes.h) from the values `in` into the value `out`;
  // `operand_dtypes` are the dtypes of `in`.
  absl::Status WriteOp(const Node& node, const std::vector<std::string>& in,
                       const std::vector<DType>& operand_dtypes, const TensorType& type,
                       const std::string& out);
  // `value` as `dtype` (itself when it has that dtype already).
  std::string CastTo(const std::string& value, DType from, DType to, const std::string& suffix) {
    if (from == to) return value;
    const std::string cast = Temp(suffix);
    SetInt(Add("Cast", {value}, cast), "to", OnnxElemType(to));
    return cast;
  }

  const Graph& graph_;
  onnx::ModelProto model_;
  std::vector<std::string> names_;  // value name per node
  absl::flat_hash_set<std::string> taken_;
  std::string current_;
};

void SetValueInfo(onnx::ValueInfoProto* info, const std::string& name, const TensorType& type) {
  info->set_name(name);
  onnx::TypeProto::Tensor* t = info->mutable_type()->mutable_tensor_type();
  t->set_elem_type(OnnxElemType(type.dtype));
  onnx::TensorShapeProto* shape = t->mutable_shape();
  for (int64_t d : type.shape.dims()) shape->add_dim()->set_dim_value(d);
}

const char* SimpleOnnxOp(const std::string& op) {
  static const std::pair<const char*, const char*> kTable[] = {
      {"neg", "Neg"},         {"abs", "Abs"},       {"exp", "Exp"},
      {"log", "Log"},         {"sqrt", "Sqrt"},     {"reciprocal", "Reciprocal"},
      {"tanh", "Tanh"},       {"sigmoid", "Sigmoid"}, {"relu", "Relu"},
      {"erf", "Erf"},         {"sin", "Sin"},       {"cos", "Cos"},
      {"floor", "Floor"},     {"ceil", "Ceil"},     {"round", "Round"},
      {"add", "Add"},         {"sub", "Sub"},       {"mul", "Mul"},
      {"div", "Div"},         {"pow", "Pow"},       {"maximum", "Max"},
      {"minimum", "Min"},     {"eq", "Equal"},      {"lt", "Less"},
      {"le", "LessOrEqual"},  {"gt", "Greater"},    {"ge", "GreaterOrEqual"},
      {"and", "And"},         {"or", "Or"},         {"not", "Not"},
      {"where", "Where"},     {"matmul", "MatMul"},
  };
  for (const auto& [ours, theirs] : kTable) {
    if (op == ours) return theirs;
  }
  return nullptr;
}

// The dtype an op computes its result in, given the dtype it computes in.
DType ComputedDType(Op op, DType compute, DType result) {
  if (GetOpKind(op) == OpKind::kCompare || op == Op::kArgmax) return result;
  return compute;
}

absl::Status Exporter::ExportNode(NodeId id) {
  const Node& node = graph_.node(id);
  const std::string& out = names_[id.value];
  current_ = out;
  std::vector<std::string> in;
  std::vector<DType> dtypes;
  for (NodeId o : node.operands) {
    in.push_back(names_[o.value]);
    dtypes.push_back(graph_.type(o).dtype);
  }
  // The dtype ONNX constrains: the typed operands' (they share one), or a
  // source's result.
  std::optional<DType> typed;
  for (size_t k = 0; k < dtypes.size() && !typed; ++k) {
    if (IsTypedOperand(node.op, static_cast<int>(k))) typed = dtypes[k];
  }
  if (node.operands.empty()) typed = node.type.dtype;
  const std::optional<DType> carrier =
      typed.has_value() ? CarrierDType(node.op, *typed) : std::nullopt;
  if (!carrier.has_value()) return WriteOp(node, in, dtypes, node.type, out);
  // Operands to the carrier, the op in it, the result back.
  for (size_t k = 0; k < in.size(); ++k) {
    if (!IsTypedOperand(node.op, static_cast<int>(k))) continue;
    in[k] = CastTo(in[k], dtypes[k], *carrier, absl::StrCat("in", k, "_", std::string(DTypeName(*carrier))));
    dtypes[k] = *carrier;
  }
  const DType computed = ComputedDType(node.op, *carrier, node.type.dtype);
  if (computed == node.type.dtype) {
    return WriteOp(node, in, dtypes, TensorType(computed, node.type.shape), out);
  }
  const std::string wide = Temp(std::string(DTypeName(computed)));
  RK_RETURN_IF_ERROR(WriteOp(node, in, dtypes, TensorType(computed, node.type.shape), wide));
  current_ = out;
  SetInt(Add("Cast", {wide}, out), "to", OnnxElemType(node.type.dtype));
  return absl::OkStatus();
}

absl::Status Exporter::WriteOp(const Node& node, const std::vector<std::string>& in,
                               const std::vector<DType>& operand_dtypes, const TensorType& type,
                               const std::string& out) {
  const std::string op(OpName(node.op));
  const Attributes& attrs = node.attrs;
  auto ints = [&](const char* name) { return attrs.GetInts(name).value_or(std::vector<int64_t>{}); };
  auto integer = [&](const char* name) { return attrs.GetInt(name).value_or(0); };
  auto flag = [&](const char* name) { return attrs.GetBool(name).value_or(false); };
  auto number = [&](const char* name) { return attrs.GetFloat(name).value_or(0.0); };

  if (const char* simple = SimpleOnnxOp(op); simple != nullptr) {
    Add(simple, in, out);
  } else if (op == "constant") {
    RK_ASSIGN_OR_RETURN(HostTensor value, attrs.GetTensor("value"));
    *model_.mutable_graph()->add_initializer() = TensorToProto(value, out);
  } else if (op == "full") {
    // Rounded to the node's dtype first: a carrier (float32 for bfloat16)
    // then holds the node's value exactly and the cast back keeps it.
    const double value = HostTensor::Full(TensorType(node.type.dtype, Shape()), number("value"))
                             .GetDouble(0);
    onnx::NodeProto* n = Add("ConstantOfShape", {Ints(type.shape.dims(), "shape")}, out);
    SetTensor(n, "value", HostTensor::Full(TensorType(type.dtype, Shape({1})), value));
  } else if (op == "iota") {
    const int rank = type.shape.rank();
    const int axis = static_cast<int>((integer("axis") % rank + rank) % rank);
    const int64_t n = type.shape.dim(axis);
    std::vector<int64_t> dims(type.shape.rank(), 1);
    dims[axis] = n;
    const std::string range = Temp("range");
    Add("Range", {ScalarOf(DType::kI64, 0, "start"), ScalarOf(DType::kI64, n, "limit"),
                  ScalarOf(DType::kI64, 1, "delta")},
        range);
    const std::string shaped = Temp("shaped");
    AllowZero(Add("Reshape", {range, Ints(dims, "dims")}, shaped), dims);
    const std::string expanded = type.dtype == DType::kI64 ? out : Temp("expanded");
    Add("Expand", {shaped, Ints(type.shape.dims(), "shape")}, expanded);
    if (type.dtype != DType::kI64) SetInt(Add("Cast", {expanded}, out), "to", OnnxElemType(type.dtype));
  } else if (op == "rsqrt") {
    const std::string root = Temp("sqrt");
    Add("Sqrt", in, root);
    Add("Reciprocal", {root}, out);
  } else if (op == "gelu") {
    // x * 0.5 * (1 + erf(x / sqrt(2)))
    const std::string scaled = Temp("scaled"), e = Temp("erf"), shifted = Temp("shifted"),
                      prod = Temp("prod");
    Add("Div", {in[0], ScalarOf(type.dtype, std::sqrt(2.0), "sqrt2")}, scaled);
    Add("Erf", {scaled}, e);
    Add("Add", {e, ScalarOf(type.dtype, 1.0, "one")}, shifted);
    Add("Mul", {in[0], shifted}, prod);
    Add("Mul", {prod, ScalarOf(type.dtype, 0.5, "half")}, out);
  } else if (op == "ne" && operand_dtypes[0] == DType::kBool) {
    Add("Xor", in, out);
  } else if (op == "ne") {
    const std::string eq = Temp("eq");
    Add("Equal", in, eq);
    Add("Not", {eq}, out);
  } else if (op == "cast") {
    SetInt(Add("Cast", in, out), "to", OnnxElemType(type.dtype));
  } else if (absl::StartsWith(op, "reduce_") && ints("axes").empty()) {
    Add("Identity", in, out);  // reducing no axis; ONNX reads no axes as "all"
  } else if (op == "reduce_sum") {
    SetInt(Add("ReduceSum", {in[0], Ints(ints("axes"), "axes")}, out), "keepdims", flag("keepdim"));
  } else if (op == "reduce_mean" || op == "reduce_max" || op == "reduce_min") {
    onnx::NodeProto* n = Add(op == "reduce_mean"   ? "ReduceMean"
                             : op == "reduce_max" ? "ReduceMax"
                                                  : "ReduceMin",
                             in, out);
    SetInts(n, "axes", ints("axes"));
    SetInt(n, "keepdims", flag("keepdim"));
  } else if (op == "argmax") {
    onnx::NodeProto* n = Add("ArgMax", in, out);
    SetInt(n, "axis", integer("axis"));
    SetInt(n, "keepdims", flag("keepdim"));
  } else if (op == "reshape") {
    AllowZero(Add("Reshape", {in[0], Ints(ints("shape"), "shape")}, out), ints("shape"));
  } else if (op == "transpose") {
    SetInts(Add("Transpose", in, out), "perm", ints("perm"));
  } else if (op == "broadcast_to") {
    Add("Expand", {in[0], Ints(ints("shape"), "shape")}, out);
  } else if (op == "slice" && type.shape.rank() == 0) {
    Add("Identity", in, out);  // ONNX has no Slice of a scalar
  } else if (op == "slice") {
    std::vector<int64_t> axes(type.shape.rank());
    for (int k = 0; k < type.shape.rank(); ++k) axes[k] = k;
    Add("Slice", {in[0], Ints(ints("start"), "starts"), Ints(ints("limit"), "ends"),
                  Ints(axes, "axes"), Ints(ints("stride"), "steps")},
        out);
  } else if (op == "concat") {
    SetInt(Add("Concat", in, out), "axis", integer("axis"));
  } else if (op == "squeeze" || op == "unsqueeze") {
    Add(op == "squeeze" ? "Squeeze" : "Unsqueeze", {in[0], Ints(ints("axes"), "axes")}, out);
  } else if (op == "softmax" || op == "log_softmax") {
    SetInt(Add(op == "softmax" ? "Softmax" : "LogSoftmax", in, out), "axis", integer("axis"));
  } else if (op == "layer_norm") {
    onnx::NodeProto* n = Add("LayerNormalization", in, out);
    SetInt(n, "axis", integer("axis"));
    SetFloat(n, "epsilon", number("eps"));
  } else if (op == "rms_norm") {
    // x / sqrt(mean(x * x) + eps) * gamma over the last axis.
    const std::string sq = Temp("square"), mean = Temp("mean"), shifted = Temp("shifted"),
                      root = Temp("root"), normed = Temp("normed");
    Add("Mul", {in[0], in[0]}, sq);
    onnx::NodeProto* m = Add("ReduceMean", {sq}, mean);
    SetInts(m, "axes", {integer("axis")});
    SetInt(m, "keepdims", 1);
    Add("Add", {mean, ScalarOf(type.dtype, number("eps"), "eps")}, shifted);
    Add("Sqrt", {shifted}, root);
    Add("Div", {in[0], root}, normed);
    Add("Mul", {normed, in[1]}, out);
  } else if (op == "gather") {
    SetInt(Add("Gather", in, out), "axis", integer("axis"));
  } else if (op == "conv2d") {
    onnx::NodeProto* n = Add("Conv", in, out);
    const Shape& w = graph_.type(node.operands[1]).shape;
    SetInts(n, "kernel_shape", {w.dim(2), w.dim(3)});
    SetInts(n, "strides", ints("strides"));
    SetInts(n, "pads", ints("pads"));
    SetInts(n, "dilations", ints("dilations"));
    SetInt(n, "group", integer("groups"));
  } else if (op == "max_pool2d" || op == "avg_pool2d") {
    onnx::NodeProto* n = Add(op == "max_pool2d" ? "MaxPool" : "AveragePool", in, out);
    SetInts(n, "kernel_shape", ints("kernel"));
    SetInts(n, "strides", ints("strides"));
    SetInts(n, "pads", ints("pads"));
    if (op == "max_pool2d") {
      SetInts(n, "dilations", ints("dilations"));
    } else {
      SetInt(n, "count_include_pad", flag("count_include_pad"));
    }
  } else if (op == "pad") {
    Add("Pad", {in[0], Ints(ints("pads"), "pads"), ScalarOf(type.dtype, number("value"), "value")},
        out);
  } else if (op == "cumsum") {
    HostTensor axis(TensorType(DType::kI64, Shape()));
    axis.SetInt(0, integer("axis"));
    onnx::NodeProto* n = Add("CumSum", {in[0], Initializer(axis, "axis")}, out);
    SetInt(n, "exclusive", flag("exclusive"));
    SetInt(n, "reverse", flag("reverse"));
  } else if (op == "clip") {
    std::vector<std::string> args = {in[0], "", ""};
    if (attrs.Has("min")) args[1] = ScalarOf(type.dtype, number("min"), "min");
    if (attrs.Has("max")) args[2] = ScalarOf(type.dtype, number("max"), "max");
    while (!args.empty() && args.back().empty()) args.pop_back();
    Add("Clip", args, out);
  } else if ((op == "mod" || op == "floordiv") && IsInteger(type.dtype)) {
    if (op == "mod") {
      SetInt(Add("Mod", in, out), "fmod", 0);
    } else {
      // floor(a / b) = trunc(a / b) - (a mod b != 0 and signs differ)
      const std::string q = Temp("trunc"), r = Temp("rem"), nz = Temp("nonzero"),
                        an = Temp("a_negative"), bn = Temp("b_negative"), differ = Temp("differ"),
                        fix = Temp("fix"), fix_int = Temp("fix_int");
      Add("Div", in, q);
      SetInt(Add("Mod", in, r), "fmod", 1);
      const std::string zero = ScalarOf(type.dtype, 0, "zero");
      const std::string is_zero = Temp("is_zero");
      Add("Equal", {r, zero}, is_zero);
      Add("Not", {is_zero}, nz);
      Add("Less", {in[0], zero}, an);
      Add("Less", {in[1], zero}, bn);
      Add("Xor", {an, bn}, differ);
      // x floordiv 0 is 0 in reprokit (nothing traps): no fix there.
      const std::string b_zero = Temp("b_zero"), b_nonzero = Temp("b_nonzero"),
                        fixable = Temp("fixable");
      Add("Equal", {in[1], zero}, b_zero);
      Add("Not", {b_zero}, b_nonzero);
      Add("And", {nz, differ}, fixable);
      Add("And", {fixable, b_nonzero}, fix);
      SetInt(Add("Cast", {fix}, fix_int), "to", OnnxElemType(type.dtype));
      Add("Sub", {q, fix_int}, out);
    }
  } else if (op == "floordiv") {
    const std::string q = Temp("quotient");
    Add("Div", in, q);
    Add("Floor", {q}, out);
  } else if (op == "mod") {
    // ONNX's Mod takes floats only as fmod (the dividend's sign): floor
    // modulo is a - floor(a / b) * b.
    const std::string q = Temp("quotient"), f = Temp("floor"), p = Temp("product");
    Add("Div", in, q);
    Add("Floor", {q}, f);
    Add("Mul", {f, in[1]}, p);
    Add("Sub", {in[0], p}, out);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("node %", current_, " (", op,
                                                 ") has no ONNX form in this exporter"));
  }
  return absl::OkStatus();
}

absl::StatusOr<onnx::ModelProto> Exporter::Run() {
  model_.set_ir_version(8);
  model_.set_producer_name("reprokit");
  model_.set_producer_version(ReprokitVersion());
  onnx::OperatorSetIdProto* opset = model_.add_opset_import();
  opset->set_domain("");
  opset->set_version(kExportOpset);
  onnx::GraphProto* g = model_.mutable_graph();
  g->set_name(graph_.name().empty() ? "reprokit" : graph_.name());
  names_.resize(graph_.num_nodes());
  for (int i = 0; i < graph_.num_nodes(); ++i) {
    const Node& n = graph_.node(NodeId(i));
    names_[i] = Fresh(n.name.empty() ? absl::StrCat("v", i) : n.name);
  }
  for (NodeId id : graph_.inputs()) SetValueInfo(g->add_input(), names_[id.value], graph_.type(id));
  for (int i = graph_.num_inputs(); i < graph_.num_nodes(); ++i) {
    RK_RETURN_IF_ERROR(ExportNode(NodeId(i)));
  }
  // Outputs need names of their own when they repeat or are graph inputs.
  absl::flat_hash_set<int> used;
  for (NodeId id : graph_.outputs()) {
    std::string name = names_[id.value];
    if (graph_.node(id).op == Op::kInput || !used.insert(id.value).second) {
      current_ = name;
      const std::string copy = Temp("out");
      Add("Identity", {name}, copy);
      name = copy;
    }
    SetValueInfo(g->add_output(), name, graph_.type(id));
  }
  RK_RETURN_IF_ERROR(CheckModel(model_));
  return std::move(model_);
}

}  // namespace

absl::StatusOr<onnx::ModelProto> ExportModel(const Graph& graph) {
  Exporter exporter(graph);
  return exporter.Run();
}

absl::Status WriteTensorFiles(const Graph& graph, const std::vector<HostTensor>& tensors,
                              bool outputs, const std::string& dir) {
  RK_RETURN_IF_ERROR(MakeDirs(dir));
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string name;
    if (outputs && i < graph.outputs().size()) {
      name = graph.DisplayName(graph.outputs()[i]);
    } else if (!outputs && static_cast<int>(i) < graph.num_inputs()) {
      name = graph.DisplayName(graph.inputs()[i]);
    }
    std::string bytes;
    if (!TensorToProto(tensors[i], name).SerializeToString(&bytes)) {
      return absl::InternalError("serializing a tensor failed");
    }
    RK_RETURN_IF_ERROR(WriteFileAtomically(
        absl::StrCat(dir, "/", outputs ? "output_" : "input_", i, ".pb"), bytes));
  }
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
