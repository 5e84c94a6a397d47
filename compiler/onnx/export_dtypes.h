// Which dtypes the ONNX form the exporter writes for each reprokit op accepts
// at opset 17 (ONNX's type constraints, e.g. Less takes numeric tensors only,
// Conv and Round no bfloat16, ConstantOfShape no bfloat16), and the dtype an
// op computes in when its own dtype is not accepted: the exporter casts the
// operands to that "carrier", writes the op, and casts the result back. Every
// carrier keeps the op's semantics exact (bool -> int32 for comparisons,
// max/min, sums, scans, argmax; bool -> float32 for means, so a mean of
// booleans is nonzero exactly when one is true; bfloat16 -> float32, which
// holds every bfloat16 value, for ops ONNX defines only up to float16).
//
// Tested by compiler/onnx/exporter_test.cc.
#ifndef REPROKIT_COMPILER_ONNX_EXPORT_DTYPES_H_
#define REPROKIT_COMPILER_ONNX_EXPORT_DTYPES_H_

#include <optional>

#include "compiler/ir/dtype.h"
#include "compiler/ir/op.h"

namespace rk::compiler::onnx_io {

// Whether operand `index` of `op` is one whose dtype the ONNX form constrains
// (where's condition, gather's indices and cast's input are not: they take
// what they are given).
bool IsTypedOperand(Op op, int index);

// Whether the ONNX form of `op` accepts `dtype` for its typed operands (for
// sources: for the result).
bool OnnxAccepts(Op op, DType dtype);

// The dtype `op` computes in when ONNX does not accept `dtype`; nullopt when
// it does, or when no carrier keeps the semantics (the exporter then writes
// the op as it is and ONNX's checker has the last word).
std::optional<DType> CarrierDType(Op op, DType dtype);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_EXPORT_DTYPES_H_
