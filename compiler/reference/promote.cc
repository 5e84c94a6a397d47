#include "compiler/reference/promote.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/half.h"

namespace rk::compiler {
namespace {

absl::Status InContext(const Graph& graph, NodeId id, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("promote to f64: node %", graph.DisplayName(id), " (",
                                   std::string(OpName(graph.node(id).op)), "): ", status.message()));
}

double ValueInDType(DType dtype, double v) {
  switch (dtype) {
    case DType::kF16: return RoundToF16(v);
    case DType::kBF16: return RoundToBF16(v);
    case DType::kF32: return static_cast<double>(static_cast<float>(v));
    default: return v;
  }
}

// The node's attributes with float dtypes and float literals promoted.
absl::StatusOr<Attributes> PromotedAttributes(const Node& node) {
  Attributes attrs = node.attrs;
  if (node.op == Op::kConstant) {
    absl::StatusOr<HostTensor> value = attrs.GetTensor("value");
    if (!value.ok()) return value.status();
    if (IsFloat(value->dtype())) attrs.Set("value", value->ConvertTo(DType::kF64));
  }
  if (node.op == Op::kFull || node.op == Op::kIota || node.op == Op::kCast) {
    absl::StatusOr<DType> dtype = attrs.GetDType("dtype");
    if (!dtype.ok()) return dtype.status();
    if (node.op == Op::kFull && IsFloat(*dtype)) {
      // The program's constant is the attribute rounded to its dtype (5.7 in
      // bf16 is 5.6875); promoting the decimal instead would make the fp64
      // reference compute a different program.
      absl::StatusOr<double> value = attrs.GetFloat("value");
      if (!value.ok()) return value.status();
      attrs.Set("value", ValueInDType(*dtype, *value));
    }
    attrs.Set("dtype", PromotedDType(*dtype));
  }
  if ((node.op == Op::kClip || node.op == Op::kPad) && IsFloat(node.type.dtype)) {
    // The bounds the program compares with, or the value it pads with, are
    // rounded to its dtype.
    for (const char* name : {"min", "max", "value"}) {
      if (!attrs.Has(name)) continue;
      absl::StatusOr<double> bound = attrs.GetFloat(name);
      if (!bound.ok()) return bound.status();
      attrs.Set(name, ValueInDType(node.type.dtype, *bound));
    }
  }
  return attrs;
}

}  // namespace

DType PromotedDType(DType dtype) { return IsFloat(dtype) ? DType::kF64 : dtype; }

absl::StatusOr<Graph> PromoteToF64(const Graph& graph) {
  GraphBuilder builder(graph.name());
  std::vector<NodeId> mapped(graph.num_nodes());
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const NodeId id(i);
    const Node& node = graph.node(id);
    const TensorType type(PromotedDType(node.type.dtype), node.type.shape);
    NodeId result;
    if (node.op == Op::kInput) {
      result = builder.Input(node.name, type);
      if (!result.valid()) {
        absl::StatusOr<Graph> failed = builder.Build();  // carries the deferred error
        return InContext(graph, id,
                         failed.ok() ? absl::InternalError("input rejected") : failed.status());
      }
    } else {
      absl::StatusOr<Attributes> attrs = PromotedAttributes(node);
      if (!attrs.ok()) return InContext(graph, id, attrs.status());
      std::vector<NodeId> operands;
      operands.reserve(node.operands.size());
      for (NodeId operand : node.operands) {
        if (!operand.valid() || operand.value >= i) {
          return InContext(graph, id, absl::InvalidArgumentError("operand defined after its use"));
        }
        operands.push_back(mapped[operand.value]);
      }
      absl::StatusOr<NodeId> added =
          builder.AddWithType(node.op, operands, *std::move(attrs), type, node.name);
      if (!added.ok()) return InContext(graph, id, added.status());
      result = *added;
    }
    if (result.value != i) {
      return InContext(graph, id, absl::InternalError("node ids are not preserved"));
    }
    mapped[i] = result;
  }
  for (NodeId out : graph.outputs()) {
    if (!out.valid() || out.value >= graph.num_nodes()) {
      return absl::InvalidArgumentError(
          absl::StrCat("promote to f64: output id ", out.value, " does not exist"));
    }
    if (absl::Status s = builder.Output(mapped[out.value]); !s.ok()) return s;
  }
  return builder.Build();
}

}  // namespace rk::compiler
