// IEEE binary16 (f16) and bfloat16 conversions. Conversions to 16 bits round to
// nearest even, keep the sign of zero, map overflow to Inf and keep NaN a NaN
// (quiet). Conversions from double round once (no double rounding via float).
//
// Tested by compiler/ir/half_test.cc.
#ifndef REPROKIT_COMPILER_IR_HALF_H_
#define REPROKIT_COMPILER_IR_HALF_H_

#include <cstdint>

namespace rk::compiler {

uint16_t DoubleToHalf(double v);
double HalfToDouble(uint16_t bits);
uint16_t DoubleToBFloat16(double v);
double BFloat16ToDouble(uint16_t bits);

inline uint16_t FloatToHalf(float v) { return DoubleToHalf(v); }
inline float HalfToFloat(uint16_t bits) { return static_cast<float>(HalfToDouble(bits)); }
inline uint16_t FloatToBFloat16(float v) { return DoubleToBFloat16(v); }
inline float BFloat16ToFloat(uint16_t bits) { return static_cast<float>(BFloat16ToDouble(bits)); }

// Rounds `v` to the nearest value representable in `dtype`'s storage (f16,
// bf16 or f32), returned as double; f64 is returned unchanged.
double RoundToF16(double v);
double RoundToBF16(double v);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_HALF_H_
