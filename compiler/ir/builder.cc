#include "compiler/ir/builder.h"

#include "absl/strings/str_cat.h"
#include "compiler/ir/names.h"
#include "compiler/ir/shape_inference.h"

namespace rk::compiler {

GraphBuilder::GraphBuilder(std::string graph_name) : graph_(std::move(graph_name)) {}

absl::Status GraphBuilder::CheckOperands(absl::Span<const NodeId> operands) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    NodeId id = operands[i];
    if (!id.valid() || id.value >= graph_.num_nodes()) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand #", i, " (id ", id.value, ") is not a node of this builder"));
    }
  }
  return absl::OkStatus();
}

absl::Status GraphBuilder::CheckName(const std::string& name) const {
  if (name.empty()) return absl::OkStatus();
  if (absl::Status s = CheckNodeName(name); !s.ok()) return s;
  if (names_.contains(name)) {
    return absl::InvalidArgumentError(absl::StrCat("duplicate name '%", name, "'"));
  }
  return absl::OkStatus();
}

NodeId GraphBuilder::Input(const std::string& name, TensorType type, bool grad) {
  absl::Status status;
  if (graph_.num_inputs() != graph_.num_nodes()) {
    status = absl::InvalidArgumentError(
        absl::StrCat("input '%", name, "' added after non-input nodes; inputs come first"));
  } else {
    status = CheckName(name);
  }
  for (int64_t d : type.shape.dims()) {
    if (status.ok() && d < 0) {
      status = absl::InvalidArgumentError(
          absl::StrCat("input '%", name, "' has a negative dimension: ", type.ToString()));
    }
  }
  if (status.ok() && grad && !IsFloat(type.dtype)) {
    status = absl::InvalidArgumentError(absl::StrCat(
        "input '%", name, "' is marked grad but has type ", type.ToString(),
        "; only float inputs have gradients"));
  }
  if (!status.ok()) {
    if (deferred_error_.ok()) deferred_error_ = status;
    return NodeId();
  }
  Node node;
  node.op = Op::kInput;
  if (grad) node.attrs.Set(kGradAttr, true);
  node.type = std::move(type);
  node.name = name;
  if (!name.empty()) names_.insert(name);
  return graph_.AppendNode(std::move(node));
}

absl::StatusOr<NodeId> GraphBuilder::Add(Op op, absl::Span<const NodeId> operands,
                                         Attributes attrs, const std::string& name) {
  if (op == Op::kInput) {
    return absl::InvalidArgumentError("use GraphBuilder::Input to add graph inputs");
  }
  if (absl::Status s = CheckOperands(operands); !s.ok()) return s;
  if (absl::Status s = CheckName(name); !s.ok()) return s;
  std::vector<TensorType> operand_types;
  operand_types.reserve(operands.size());
  for (NodeId id : operands) operand_types.push_back(graph_.type(id));
  absl::StatusOr<TensorType> type = InferType(op, operand_types, attrs);
  if (!type.ok()) return type.status();
  Node node;
  node.op = op;
  node.operands.assign(operands.begin(), operands.end());
  node.attrs = std::move(attrs);
  node.type = *std::move(type);
  node.name = name;
  if (!name.empty()) names_.insert(name);
  return graph_.AppendNode(std::move(node));
}

absl::StatusOr<NodeId> GraphBuilder::AddWithType(Op op, absl::Span<const NodeId> operands,
                                                 Attributes attrs, const TensorType& declared,
                                                 const std::string& name) {
  if (op == Op::kInput) {
    return absl::InvalidArgumentError("use GraphBuilder::Input to add graph inputs");
  }
  if (absl::Status s = CheckOperands(operands); !s.ok()) return s;
  std::vector<TensorType> operand_types;
  for (NodeId id : operands) operand_types.push_back(graph_.type(id));
  absl::StatusOr<TensorType> inferred = InferType(op, operand_types, attrs);
  if (!inferred.ok()) return inferred.status();
  if (*inferred != declared) {
    return absl::InvalidArgumentError(absl::StrCat("declared type ", declared.ToString(),
                                                   " but inference gives ",
                                                   inferred->ToString()));
  }
  return Add(op, operands, std::move(attrs), name);
}

absl::StatusOr<NodeId> GraphBuilder::Constant(HostTensor value, const std::string& name) {
  Attributes attrs;
  attrs.Set("value", std::move(value));
  return Add(Op::kConstant, {}, std::move(attrs), name);
}

absl::StatusOr<NodeId> GraphBuilder::Full(TensorType type, double value) {
  Attributes attrs;
  attrs.Set("value", value);
  attrs.Set("dtype", type.dtype);
  attrs.Set("shape", type.shape.dims());
  return Add(Op::kFull, {}, std::move(attrs));
}

absl::StatusOr<NodeId> GraphBuilder::Cast(NodeId x, DType dtype) {
  Attributes attrs;
  attrs.Set("dtype", dtype);
  return Add(Op::kCast, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> GraphBuilder::Reduce(Op op, NodeId x, std::vector<int64_t> axes,
                                            bool keepdim) {
  Attributes attrs;
  if (op == Op::kArgmax) {
    if (axes.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("argmax reduces exactly one axis, got ", axes.size()));
    }
    attrs.Set("axis", axes[0]);
  } else {
    attrs.Set("axes", std::move(axes));
  }
  attrs.Set("keepdim", keepdim);
  return Add(op, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> GraphBuilder::Reshape(NodeId x, std::vector<int64_t> shape) {
  Attributes attrs;
  attrs.Set("shape", std::move(shape));
  return Add(Op::kReshape, {x}, std::move(attrs));
}

absl::Status GraphBuilder::Output(NodeId id) {
  if (!id.valid() || id.value >= graph_.num_nodes()) {
    return absl::InvalidArgumentError(
        absl::StrCat("output id ", id.value, " is not a node of this builder"));
  }
  graph_.AddOutput(id);
  return absl::OkStatus();
}

absl::StatusOr<Graph> GraphBuilder::Build() {
  absl::Status error = deferred_error_;
  if (error.ok() && graph_.outputs().empty()) {
    error = absl::InvalidArgumentError(
        absl::StrCat("graph @", graph_.name(), " has no outputs"));
  }
  Graph result = std::move(graph_);
  graph_ = Graph(result.name());
  deferred_error_ = absl::OkStatus();
  names_.clear();
  if (!error.ok()) return error;
  return result;
}

}  // namespace rk::compiler
