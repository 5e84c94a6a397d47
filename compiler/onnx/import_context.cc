#include "compiler/onnx/import_context.h"

#include "absl/strings/str_cat.h"
#include "compiler/ir/shape_inference.h"

namespace rk::compiler::onnx_io {

absl::StatusOr<std::vector<int64_t>> NodeContext::ConstantInts(int i) {
  absl::StatusOr<HostTensor> t = ConstantInput(i);
  if (!t.ok()) return t.status();
  if (!IsInteger(t->dtype())) {
    return Error(absl::StrCat("input ", i, " ('", node().input(i), "') must be an integer tensor, not ",
                              std::string(DTypeName(t->dtype()))));
  }
  std::vector<int64_t> values(t->num_elements());
  for (int64_t k = 0; k < t->num_elements(); ++k) values[k] = t->GetInt(k);
  return values;
}

absl::StatusOr<NodeId> NodeContext::Scalar(DType dtype, double value) {
  // The value as `dtype` holds it, so the attribute says what the node
  // computes and survives export (which stores it in `dtype`) and import
  // unchanged: 0.044715 in an f32 graph is 0.044714998453855515.
  if (IsFloat(dtype)) value = HostTensor::Full(TensorType(dtype, Shape()), value).GetDouble(0);
  Attributes attrs;
  attrs.Set("value", value);
  attrs.Set("dtype", dtype);
  attrs.Set("shape", std::vector<int64_t>{});
  return Emit(Op::kFull, {}, std::move(attrs));
}

const onnx::AttributeProto* NodeContext::FindAttr(const std::string& name) const {
  for (const onnx::AttributeProto& a : node().attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

absl::StatusOr<int64_t> NodeContext::AttrInt(const std::string& name, int64_t fallback) const {
  const onnx::AttributeProto* a = FindAttr(name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto::INT) {
    return Error(absl::StrCat("attribute '", name, "' must be an int"));
  }
  return a->i();
}

absl::StatusOr<double> NodeContext::AttrFloat(const std::string& name, double fallback) const {
  const onnx::AttributeProto* a = FindAttr(name);
  // ONNX float attributes, their schema defaults included, are 32-bit: a
  // missing epsilon=1e-5 is 1e-5f, the value an exported model spells out.
  if (a == nullptr) return static_cast<double>(static_cast<float>(fallback));
  if (a->type() != onnx::AttributeProto::FLOAT) {
    return Error(absl::StrCat("attribute '", name, "' must be a float"));
  }
  return static_cast<double>(a->f());
}

absl::StatusOr<std::string> NodeContext::AttrString(const std::string& name,
                                                    std::string fallback) const {
  const onnx::AttributeProto* a = FindAttr(name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto::STRING) {
    return Error(absl::StrCat("attribute '", name, "' must be a string"));
  }
  return a->s();
}

absl::StatusOr<std::optional<std::vector<int64_t>>> NodeContext::AttrInts(
    const std::string& name) const {
  const onnx::AttributeProto* a = FindAttr(name);
  if (a == nullptr) return std::optional<std::vector<int64_t>>();
  if (a->type() != onnx::AttributeProto::INTS) {
    return Error(absl::StrCat("attribute '", name, "' must be a list of ints"));
  }
  return std::optional<std::vector<int64_t>>(
      std::vector<int64_t>(a->ints().begin(), a->ints().end()));
}

absl::Status NodeContext::Error(const std::string& message) const {
  return absl::InvalidArgumentError(
      absl::StrCat(node().op_type(), " node '", node().name(), "': ", message));
}

absl::Status NodeContext::Unsupported(const std::string& what) const {
  return Error(absl::StrCat(what, " is not supported"));
}

absl::StatusOr<int> NodeContext::Axis(int64_t axis, int rank) const {
  absl::StatusOr<int> a = NormalizeAxis(axis, rank);
  if (!a.ok()) return Error(std::string(a.status().message()));
  return a;
}

}  // namespace rk::compiler::onnx_io
