// Internal to the reference interpreter: per-op-family evaluation functions
// and the element access and indexing helpers they share. Each Eval* function
// computes one node's value from its operands' values; the result has exactly
// node.type. Not part of the public API (see interpreter.h).
//
// Tested through compiler/reference/ops_test.cc.
#ifndef REPROKIT_COMPILER_REFERENCE_KERNELS_H_
#define REPROKIT_COMPILER_REFERENCE_KERNELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler::reference_internal {

// The op's text name as a std::string (absl::StrCat does not take
// std::string_view in every Abseil build).
inline std::string OpLabel(Op op) { return std::string(OpName(op)); }

// --- Element access (the dtype switch is outside the element loop). ---

// Every element as double (floats exactly; integers and bool converted).
std::vector<double> ReadDoubles(const HostTensor& t);
// Every element as int64 (integers and bool exactly; floats truncated).
std::vector<int64_t> ReadInts(const HostTensor& t);
// Stores `values` into `t` (same element count), rounding once to t's dtype:
// f16/bf16 to nearest even, f32 through a float cast, integers via
// CastDoubleToInt, bool as v != 0.
void WriteDoubles(HostTensor& t, absl::Span<const double> values);
// Stores `values` into `t`, wrapping modulo 2^bits (bool: v != 0; floats: the
// value rounded once to the float dtype).
void WriteInts(HostTensor& t, absl::Span<const int64_t> values);
// Float to integer of `dtype`: truncates toward zero, wraps modulo 2^bits;
// NaN and +-Inf give 0.
int64_t CastDoubleToInt(double v, DType dtype);
// Wraps `v` modulo 2^bits of `dtype` (i32, i64; bool gives v != 0).
int64_t WrapInt(int64_t v, DType dtype);

// --- Indexing. ---

// For every element of a row-major tensor of shape `out_dims` (in order), the
// flat index `offset + sum(index[d] * strides[d])`. Linear time.
std::vector<int64_t> StridedIndices(absl::Span<const int64_t> out_dims,
                                    absl::Span<const int64_t> strides, int64_t offset = 0);
// For every element of `out` (in order), the flat index of the element of `in`
// it reads under NumPy broadcasting. `in` must broadcast to `out`.
absl::StatusOr<std::vector<int64_t>> BroadcastIndices(const Shape& in, const Shape& out);
// out[i] = in[indices[i]], byte-exact; `out_type` has the dtype of `in`.
HostTensor GatherElements(const HostTensor& in, const TensorType& out_type,
                          absl::Span<const int64_t> indices);
// Checks that `t` has `type` (an Internal error otherwise: the graph was not
// verified or an op kernel is wrong).
absl::Status ExpectType(const HostTensor& t, const TensorType& type, const char* what);

// --- Op families. `operands` are the values of node.operands, in order. ---

absl::StatusOr<HostTensor> EvalSource(const Node& node);
absl::StatusOr<HostTensor> EvalUnary(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalBinary(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalCompare(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalLogic(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalSelect(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalCast(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalReduce(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalScan(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalLayout(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalMatmul(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalGather(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalWindow(const Node& node, absl::Span<const HostTensor> operands);
absl::StatusOr<HostTensor> EvalComposite(const Node& node,
                                         absl::Span<const HostTensor> operands);

}  // namespace rk::compiler::reference_internal

#endif  // REPROKIT_COMPILER_REFERENCE_KERNELS_H_
