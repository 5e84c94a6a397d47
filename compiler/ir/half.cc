#include "compiler/ir/half.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace rk::compiler {
namespace {

// A binary floating-point format narrower than double, with IEEE semantics
// (subnormals, Inf, NaN): f16 and bf16 differ only in these numbers.
struct NarrowFormat {
  int mantissa_bits;   // explicit fraction bits
  int exponent_bias;   // the minimum normal exponent is 1 - bias
  uint16_t quiet_nan;  // canonical quiet NaN, sign clear
  uint16_t infinity;   // +Inf
};

constexpr NarrowFormat kHalf = {10, 15, 0x7E00, 0x7C00};
constexpr NarrowFormat kBFloat16 = {7, 127, 0x7FC0, 0x7F80};

uint64_t DoubleBits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

// Rounds once, from the exact double, to nearest even. The result is built as
// ((exponent - min_exponent) << mantissa_bits) + significand, which lets a
// subnormal that rounds up become the smallest normal and the largest finite
// value that rounds up become Inf, both by plain carry.
uint16_t RoundToNarrow(double v, const NarrowFormat& f) {
  const uint64_t bits = DoubleBits(v);
  const uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  const int biased = static_cast<int>((bits >> 52) & 0x7FF);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (biased == 0x7FF) return sign | (fraction != 0 ? f.quiet_nan : f.infinity);
  // Double subnormals (and zeros) are far below half the smallest narrow subnormal.
  if (biased == 0) return sign;

  const int exponent = biased - 1023;
  const uint64_t significand = fraction | (uint64_t{1} << 52);  // value = sig * 2^(exponent-52)
  const int min_exponent = 1 - f.exponent_bias;
  const int target_exponent = exponent < min_exponent ? min_exponent : exponent;
  // Bits of `significand` below the target quantum 2^(target_exponent - mantissa_bits).
  const int shift = 52 - f.mantissa_bits + (target_exponent - exponent);
  uint64_t q = 0;
  if (shift < 64) {
    q = significand >> shift;
    const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (q & 1) != 0)) ++q;
  }
  const uint64_t magnitude =
      (static_cast<uint64_t>(target_exponent - min_exponent) << f.mantissa_bits) + q;
  if (magnitude >= f.infinity) return sign | f.infinity;
  return sign | static_cast<uint16_t>(magnitude);
}

double NarrowToDouble(uint16_t bits, const NarrowFormat& f) {
  const bool negative = (bits & 0x8000) != 0;
  const int exponent_field = (bits & 0x7FFF) >> f.mantissa_bits;
  const int max_field = f.infinity >> f.mantissa_bits;
  const uint32_t fraction = bits & ((1u << f.mantissa_bits) - 1);
  double magnitude;
  if (exponent_field == max_field) {
    magnitude = fraction != 0 ? std::numeric_limits<double>::quiet_NaN()
                              : std::numeric_limits<double>::infinity();
  } else if (exponent_field == 0) {
    magnitude = std::ldexp(static_cast<double>(fraction), 1 - f.exponent_bias - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(fraction | (1u << f.mantissa_bits)),
                           exponent_field - f.exponent_bias - f.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace

uint16_t DoubleToHalf(double v) { return RoundToNarrow(v, kHalf); }
double HalfToDouble(uint16_t bits) { return NarrowToDouble(bits, kHalf); }
uint16_t DoubleToBFloat16(double v) { return RoundToNarrow(v, kBFloat16); }
double BFloat16ToDouble(uint16_t bits) { return NarrowToDouble(bits, kBFloat16); }

double RoundToF16(double v) { return HalfToDouble(DoubleToHalf(v)); }
double RoundToBF16(double v) { return BFloat16ToDouble(DoubleToBFloat16(v)); }

}  // namespace rk::compiler
