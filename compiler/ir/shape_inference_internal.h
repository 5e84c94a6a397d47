// Helpers shared by the files that implement InferType (shape_inference.cc
// and shape_inference_layout.cc). Not part of the public API.
#ifndef REPROKIT_COMPILER_IR_SHAPE_INFERENCE_INTERNAL_H_
#define REPROKIT_COMPILER_IR_SHAPE_INFERENCE_INTERNAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "compiler/ir/attributes.h"
#include "compiler/ir/op.h"
#include "compiler/ir/shape.h"

namespace rk::compiler::shape_inference_internal {

// "<op>: <pieces...>" as InvalidArgument.
template <typename... Pieces>
absl::Status OpError(Op op, const Pieces&... pieces) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(OpName(op)), ": ", pieces...));
}

// Re-labels an error from a helper (attribute getter, NormalizeAxis, ...) with
// the op's name, as InvalidArgument.
absl::Status WithOp(Op op, const absl::Status& status);

// The dims of `shape` as a checked shape attribute: no negative dims and an
// element count that fits in int64.
absl::Status CheckDims(Op op, absl::Span<const int64_t> dims, const std::string& what);

// Normalizes a list of axes against `rank`: each in [-rank, rank), no
// duplicates. Returned sorted ascending.
absl::StatusOr<std::vector<int>> NormalizeAxes(Op op, absl::Span<const int64_t> axes, int rank);

// InferType for ops of kind kLayout (reshape, transpose, broadcast_to, slice,
// concat, squeeze, unsqueeze, pad). Attributes are already schema-checked.
absl::StatusOr<TensorType> InferLayout(Op op, absl::Span<const TensorType> operands,
                                       const Attributes& attrs);

// InferType for ops of kind kWindow (conv2d and the pools). Attributes are
// already schema-checked.
absl::StatusOr<TensorType> InferWindow(Op op, absl::Span<const TensorType> operands,
                                       const Attributes& attrs);

}  // namespace rk::compiler::shape_inference_internal

#endif  // REPROKIT_COMPILER_IR_SHAPE_INFERENCE_INTERNAL_H_
