#include "compiler/onnx/export_dtypes.h"

namespace rk::compiler::onnx_io {
namespace {

// Sets of dtypes, as bit masks over DType.
using Mask = unsigned;
constexpr Mask Bit(DType d) { return 1u << static_cast<int>(d); }
constexpr Mask kFloatNoBf16 = Bit(DType::kF16) | Bit(DType::kF32) | Bit(DType::kF64);
constexpr Mask kFloat = kFloatNoBf16 | Bit(DType::kBF16);
constexpr Mask kNumeric = kFloat | Bit(DType::kI32) | Bit(DType::kI64);
constexpr Mask kAll = kNumeric | Bit(DType::kBool);

// The typed operands' dtypes each op's ONNX form accepts (opset 17).
Mask Accepted(Op op) {
  switch (op) {
    // Sources: ConstantOfShape (full) has no bfloat16 before opset 20; iota
    // is Range in int64 and a Cast; constants are initializers.
    case Op::kFull: return kAll & ~Bit(DType::kBF16);
    case Op::kInput:
    case Op::kConstant:
    case Op::kIota: return kAll;
    // Sin, Cos, Round (opset 7 / 11) and the windows (Conv-11, MaxPool-12,
    // AveragePool-11) stop at float16.
    case Op::kSin:
    case Op::kCos:
    case Op::kRound:
    case Op::kConv2d:
    case Op::kMaxPool2d:
    case Op::kAvgPool2d: return kFloatNoBf16;
    case Op::kExp:
    case Op::kLog:
    case Op::kSqrt:
    case Op::kRsqrt:
    case Op::kReciprocal:
    case Op::kTanh:
    case Op::kSigmoid:
    case Op::kFloor:
    case Op::kCeil:
    case Op::kGelu:
    case Op::kSoftmax:
    case Op::kLogSoftmax:
    case Op::kLayerNorm:
    case Op::kRmsNorm: return kFloat;
    // Arithmetic, Max/Min, Less.., reductions, ArgMax, CumSum, MatMul: the
    // numeric types, never bool.
    case Op::kNeg:
    case Op::kAbs:
    case Op::kRelu:
    case Op::kErf:
    case Op::kClip:
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kPow:
    case Op::kMaximum:
    case Op::kMinimum:
    case Op::kMod:
    case Op::kFloorDiv:
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe:
    case Op::kReduceSum:
    case Op::kReduceMean:
    case Op::kReduceMax:
    case Op::kReduceMin:
    case Op::kArgmax:
    case Op::kCumsum:
    case Op::kMatmul: return kNumeric;
    // Equal takes bool too; ne is Xor on bool, Not(Equal) otherwise.
    case Op::kEq:
    case Op::kNe: return kAll;
    case Op::kAnd:
    case Op::kOr:
    case Op::kNot: return Bit(DType::kBool);
    // Where, Cast and the layout ops (Pad-13 included) take every type.
    default: return kAll;
  }
}

}  // namespace

bool IsTypedOperand(Op op, int index) {
  switch (op) {
    case Op::kWhere: return index != 0;
    case Op::kGather: return index == 0;
    case Op::kCast: return false;
    default: return true;
  }
}

bool OnnxAccepts(Op op, DType dtype) { return (Accepted(op) & Bit(dtype)) != 0; }

std::optional<DType> CarrierDType(Op op, DType dtype) {
  // An integer in a float-only op has no exact carrier (nor does the IR
  // allow one there).
  if (OnnxAccepts(op, dtype) || IsInteger(dtype)) return std::nullopt;
  // bool: an integer holds false < true and sums/maxima exactly; a mean needs
  // a float (an integer mean of {1, 0, 0} truncates to 0, the mean is not 0).
  // bfloat16 and float16 values are all float32 values.
  const DType candidates[] = {
      dtype == DType::kBool && op != Op::kReduceMean ? DType::kI32 : DType::kF32,
      DType::kF64,
  };
  for (DType c : candidates) {
    if (OnnxAccepts(op, c)) return c;
  }
  return std::nullopt;
}

}  // namespace rk::compiler::onnx_io
