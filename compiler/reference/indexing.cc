// Reference kernel for gather (ONNX Gather): out[pre, j..., post] =
// data[pre, k, post] with k = indices[j...], plus the axis size when k is
// negative. An index still outside [0, size) selects nothing: its elements
// are zero (0, +0.0 or false). Elements move as bytes, so gather is exact
// for every dtype.
//
// Tested by compiler/reference/ops_test.cc.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/reference/kernels.h"

namespace rk::compiler::reference_internal {

absl::StatusOr<HostTensor> EvalGather(const Node& node, absl::Span<const HostTensor> operands) {
  if (operands.size() != 2) return absl::InternalError("gather: expected two operands");
  const HostTensor& data = operands[0];
  const HostTensor& indices = operands[1];
  const int rank = data.shape().rank();
  absl::StatusOr<int64_t> attr = node.attrs.GetInt("axis");
  if (!attr.ok()) return attr.status();
  const int64_t axis = *attr < 0 ? *attr + rank : *attr;
  if (axis < 0 || axis >= rank) {
    return absl::InternalError(absl::StrCat("gather: axis ", *attr, " out of range for ",
                                            data.type().ToString()));
  }
  if (!IsInteger(indices.dtype())) {
    return absl::InternalError(absl::StrCat("gather: indices ", indices.type().ToString()));
  }
  const int64_t size = data.shape().dim(static_cast<int>(axis));
  int64_t outer = 1;
  int64_t inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d < axis) outer *= data.shape().dim(d);
    if (d > axis) inner *= data.shape().dim(d);
  }
  const std::vector<int64_t> picks = ReadInts(indices);
  const int64_t n = static_cast<int64_t>(picks.size());
  if (node.type.dtype != data.dtype() || node.type.num_elements() != outer * n * inner) {
    return absl::InternalError(absl::StrCat("gather: ", data.type().ToString(), " by ",
                                            indices.type().ToString(), " cannot give ",
                                            node.type.ToString()));
  }
  HostTensor out(node.type);  // zero-filled: what out-of-range indices select
  const size_t row = static_cast<size_t>(inner * DTypeSize(data.dtype()));
  const auto* src = static_cast<const uint8_t*>(data.raw_data());
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t k = picks[j];
      if (k < 0) k += size;
      if (k < 0 || k >= size) continue;
      std::memcpy(dst + (o * n + j) * row, src + (o * size + k) * row, row);
    }
  }
  return out;
}

}  // namespace rk::compiler::reference_internal
