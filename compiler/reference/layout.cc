// Reference kernels for layout ops: reshape, squeeze, unsqueeze, transpose,
// broadcast_to, slice, concat, pad. They move bytes and never change values
// (pad's fill is its value converted to the dtype once), so they are exact for
// every dtype.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/reference/kernels.h"

namespace rk::compiler::reference_internal {
namespace {

absl::Status Mismatch(const Node& node, const std::string& why) {
  return absl::InternalError(absl::StrCat(OpLabel(node.op), ": ", why));
}

// reshape, squeeze, unsqueeze: same elements in the same order.
absl::StatusOr<HostTensor> Reinterpret(const Node& node, const HostTensor& x) {
  if (x.num_elements() != node.type.num_elements() || x.dtype() != node.type.dtype) {
    return Mismatch(node, absl::StrCat("cannot view ", x.type().ToString(), " as ",
                                       node.type.ToString()));
  }
  return HostTensor::FromBytes(node.type, x.bytes());
}

absl::StatusOr<HostTensor> Transpose(const Node& node, const HostTensor& x) {
  absl::StatusOr<std::vector<int64_t>> perm = node.attrs.GetInts("perm");
  if (!perm.ok()) return perm.status();
  const int rank = x.shape().rank();
  if (static_cast<int>(perm->size()) != rank || node.type.shape.rank() != rank) {
    return Mismatch(node, "perm does not match the rank");
  }
  std::vector<int64_t> in_strides = x.shape().Strides();
  std::vector<int64_t> strides(rank);
  std::vector<bool> seen(rank, false);
  for (int d = 0; d < rank; ++d) {
    int64_t p = (*perm)[d];
    if (p < 0 || p >= rank || seen[p] || node.type.shape.dim(d) != x.shape().dim(p)) {
      return Mismatch(node, "perm is not a permutation matching the result shape");
    }
    seen[p] = true;
    strides[d] = in_strides[p];
  }
  return GatherElements(x, node.type, StridedIndices(node.type.shape.dims(), strides));
}

absl::StatusOr<HostTensor> BroadcastTo(const Node& node, const HostTensor& x) {
  absl::StatusOr<std::vector<int64_t>> indices = BroadcastIndices(x.shape(), node.type.shape);
  if (!indices.ok()) return indices.status();
  return GatherElements(x, node.type, *indices);
}

absl::StatusOr<HostTensor> Slice(const Node& node, const HostTensor& x) {
  absl::StatusOr<std::vector<int64_t>> start = node.attrs.GetInts("start");
  if (!start.ok()) return start.status();
  absl::StatusOr<std::vector<int64_t>> limit = node.attrs.GetInts("limit");
  if (!limit.ok()) return limit.status();
  const int rank = x.shape().rank();
  std::vector<int64_t> step(rank, 1);
  if (node.attrs.Has("stride")) {
    absl::StatusOr<std::vector<int64_t>> s = node.attrs.GetInts("stride");
    if (!s.ok()) return s.status();
    step = *std::move(s);
  }
  if (static_cast<int>(start->size()) != rank || static_cast<int>(limit->size()) != rank ||
      static_cast<int>(step.size()) != rank || node.type.shape.rank() != rank) {
    return Mismatch(node, "start/limit/stride do not match the rank");
  }
  std::vector<int64_t> in_strides = x.shape().Strides();
  std::vector<int64_t> strides(rank);
  int64_t offset = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t b = (*start)[d], e = (*limit)[d], s = step[d], dim = x.shape().dim(d);
    if (s <= 0 || b < 0 || e > dim || b > e) {
      return Mismatch(node, absl::StrCat("bad range [", b, ":", e, ":", s, "] on axis ", d));
    }
    const int64_t count = (e - b + s - 1) / s;
    if (count != node.type.shape.dim(d)) {
      return Mismatch(node, absl::StrCat("axis ", d, " gives ", count, " elements, the result has ",
                                         node.type.shape.dim(d)));
    }
    if (count > 0) offset += b * in_strides[d];
    strides[d] = in_strides[d] * s;
  }
  if (node.type.num_elements() == 0) return HostTensor(node.type);
  return GatherElements(x, node.type, StridedIndices(node.type.shape.dims(), strides, offset));
}

absl::StatusOr<HostTensor> Concat(const Node& node, absl::Span<const HostTensor> operands) {
  absl::StatusOr<int64_t> axis_attr = node.attrs.GetInt("axis");
  if (!axis_attr.ok()) return axis_attr.status();
  const Shape& out_shape = node.type.shape;
  const int rank = out_shape.rank();
  if (*axis_attr < -rank || *axis_attr >= rank) return Mismatch(node, "axis out of range");
  const int axis = static_cast<int>(*axis_attr < 0 ? *axis_attr + rank : *axis_attr);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= out_shape.dim(d);
  for (int d = axis + 1; d < rank; ++d) inner *= out_shape.dim(d);
  int64_t total = 0;
  for (const HostTensor& t : operands) {
    if (t.dtype() != node.type.dtype || t.shape().rank() != rank) {
      return Mismatch(node, "operand type does not match the result");
    }
    for (int d = 0; d < rank; ++d) {
      if (d != axis && t.shape().dim(d) != out_shape.dim(d)) {
        return Mismatch(node, "operand shape does not match the result");
      }
    }
    total += t.shape().dim(axis);
  }
  if (total != out_shape.dim(axis)) return Mismatch(node, "concatenated size differs");
  HostTensor out(node.type);
  if (out.num_elements() == 0) return out;
  const int64_t size = DTypeSize(node.type.dtype);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor& t : operands) {
      const int64_t chunk = t.shape().dim(axis) * inner * size;
      if (chunk == 0) continue;
      std::memcpy(dst, static_cast<const uint8_t*>(t.raw_data()) + o * chunk, chunk);
      dst += chunk;
    }
  }
  return out;
}

// pad: the result filled with `value` (converted to the dtype as `full`
// converts it), the operand copied in at offset pads[d] on every axis d.
absl::StatusOr<HostTensor> Pad(const Node& node, const HostTensor& x) {
  absl::StatusOr<std::vector<int64_t>> pads = node.attrs.GetInts("pads");
  if (!pads.ok()) return pads.status();
  absl::StatusOr<double> value = node.attrs.GetFloat("value");
  if (!value.ok()) return value.status();
  const int rank = x.shape().rank();
  if (static_cast<int>(pads->size()) != 2 * rank || node.type.shape.rank() != rank ||
      x.dtype() != node.type.dtype) {
    return Mismatch(node, "pads do not match the operand");
  }
  const std::vector<int64_t> out_strides = node.type.shape.Strides();
  int64_t offset = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t begin = (*pads)[d], end = (*pads)[rank + d];
    if (begin < 0 || end < 0 || x.shape().dim(d) + begin + end != node.type.shape.dim(d)) {
      return Mismatch(node, absl::StrCat("axis ", d, " does not match the result"));
    }
    offset += begin * out_strides[d];
  }
  HostTensor out = HostTensor::Full(node.type, *value);
  if (x.num_elements() == 0) return out;
  const std::vector<int64_t> at = StridedIndices(x.shape().dims(), out_strides, offset);
  const size_t size = DTypeSize(node.type.dtype);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  const auto* src = static_cast<const uint8_t*>(x.raw_data());
  for (size_t i = 0; i < at.size(); ++i) std::memcpy(dst + at[i] * size, src + i * size, size);
  return out;
}

}  // namespace

absl::StatusOr<HostTensor> EvalLayout(const Node& node, absl::Span<const HostTensor> operands) {
  if (node.op == Op::kConcat) return Concat(node, operands);
  if (operands.size() != 1) return Mismatch(node, "expected one operand");
  const HostTensor& x = operands[0];
  switch (node.op) {
    case Op::kReshape:
    case Op::kSqueeze:
    case Op::kUnsqueeze: return Reinterpret(node, x);
    case Op::kTranspose: return Transpose(node, x);
    case Op::kBroadcastTo: return BroadcastTo(node, x);
    case Op::kSlice: return Slice(node, x);
    case Op::kPad: return Pad(node, x);
    default: return Mismatch(node, "not a layout op");
  }
}

}  // namespace rk::compiler::reference_internal
