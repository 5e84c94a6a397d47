#include "compiler/generator/corner_values.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "compiler/ir/half.h"

namespace rk::compiler::generator {
namespace {

uint64_t RandomBits(Rng& rng, int bits) {
  const uint64_t word = rng.Next();
  return bits == 64 ? word : word & ((uint64_t{1} << bits) - 1);
}

void SetCornerFloat(HostTensor& t, int64_t i, Rng& rng) {
  const bool special = rng.Below(3) == 0;
  double v = special ? CornerValue(rng) : 0;
  switch (t.dtype()) {
    case DType::kF64:
      if (!special) {
        const uint64_t bits = RandomBits(rng, 64);
        std::memcpy(&v, &bits, 8);
        if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
      }
      t.data<double>()[i] = v;
      break;
    case DType::kF32: {
      if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) {
        v = std::copysign(std::numeric_limits<double>::infinity(), v);
      }
      float f = static_cast<float>(v);
      if (!special) {
        const uint32_t bits = static_cast<uint32_t>(RandomBits(rng, 32));
        std::memcpy(&f, &bits, 4);
      }
      if (std::isnan(f)) f = std::copysign(std::numeric_limits<float>::quiet_NaN(), f);
      t.data<float>()[i] = f;
      break;
    }
    default: {
      // f16 and bf16: canonical NaNs, since the text form has one NaN per sign.
      const bool half = t.dtype() == DType::kF16;
      uint16_t bits = static_cast<uint16_t>(RandomBits(rng, 16));
      if (special) bits = half ? DoubleToHalf(v) : DoubleToBFloat16(v);
      const double back = half ? HalfToDouble(bits) : BFloat16ToDouble(bits);
      if (std::isnan(back)) bits = (bits & 0x8000) | (half ? 0x7e00 : 0x7fc0);
      t.data<uint16_t>()[i] = bits;
    }
  }
}

}  // namespace

double CornerValue(Rng& rng) {
  constexpr double kSpecials[] = {0.0,     -0.0,   1.0,   -2.5,  0.1,
                                  1e-40,   65504.0, 3.0e38, 1e300, 5e-324};
  switch (rng.Below(4)) {
    case 0: return std::numeric_limits<double>::infinity() * (rng.Chance(0.5) ? 1 : -1);
    case 1: return std::copysign(std::numeric_limits<double>::quiet_NaN(), rng.Chance(0.5) ? 1 : -1);
    default: return rng.Pick(kSpecials);
  }
}

HostTensor CornerLiteral(const TensorType& type, Rng& rng) {
  HostTensor t(type);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    switch (type.dtype) {
      case DType::kBool: t.data<uint8_t>()[i] = static_cast<uint8_t>(rng.Below(2)); break;
      case DType::kI32: t.data<int32_t>()[i] = static_cast<int32_t>(rng.Next()); break;
      case DType::kI64: t.data<int64_t>()[i] = static_cast<int64_t>(rng.Next()); break;
      default: SetCornerFloat(t, i, rng);
    }
  }
  return t;
}

void AddCornerValues(Op op, const TensorType& type, Attributes& attrs, Rng& rng) {
  if (!rng.Chance(0.5)) return;
  if (op == Op::kConstant) {
    attrs.Set("value", CornerLiteral(type, rng));
  } else if (op == Op::kFull) {
    double v = CornerValue(rng);
    // Integer and bool fills hold whole numbers.
    if (!IsFloat(type.dtype)) v = std::isfinite(v) ? std::trunc(v) : 0.0;
    attrs.Set("value", v);
  } else if (op == Op::kLayerNorm || op == Op::kRmsNorm) {
    // Shape inference wants a finite eps >= 0.
    const double eps = std::fabs(CornerValue(rng));
    attrs.Set("eps", std::isfinite(eps) ? eps : 0.0);
  }
}

std::string CornerNames::GraphName() {
  constexpr const char* kNames[] = {"main", "block", "g.v2", "with space", "", "x\"q"};
  return kNames[rng_.Below(std::size(kNames))];
}

std::string CornerNames::NodeName(double p) {
  if (!rng_.Chance(p)) return "";
  constexpr const char* kStems[] = {"x", "h.", "t_", "Layer0.w", "_"};
  return std::string(kStems[rng_.Below(std::size(kStems))]) + std::to_string(counter_++);
}

}  // namespace rk::compiler::generator
