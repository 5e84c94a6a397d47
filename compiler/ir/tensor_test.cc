#include "compiler/ir/tensor.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "compiler/ir/half.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

TensorType T(DType dtype, Shape shape) { return TensorType(dtype, std::move(shape)); }

TEST(TensorTest, StorageIsAlignedAndZeroed) {
  for (DType dtype : kAllDTypes) {
    for (int64_t n : {0, 1, 3, 17, 1000}) {
      HostTensor t(T(dtype, {n}));
      ASSERT_TRUE(t.valid());
      ASSERT_NE(t.raw_data(), nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
      EXPECT_EQ(t.byte_size(), n * DTypeSize(dtype));
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(t.GetDouble(i), 0.0);
    }
  }
  EXPECT_FALSE(HostTensor().valid());
}

TEST(TensorTest, CopiesShareStorageCloneDoesNot) {
  HostTensor a = HostTensor::Full(T(DType::kF32, {4}), 1.5);
  HostTensor b = a;
  HostTensor c = a.Clone();
  b.SetDouble(0, 7.0);
  EXPECT_EQ(a.GetDouble(0), 7.0);
  EXPECT_EQ(c.GetDouble(0), 1.5);
  EXPECT_NE(c.raw_data(), a.raw_data());
  EXPECT_FALSE(a.BitwiseEqual(c));
  c.SetDouble(0, 7.0);
  EXPECT_TRUE(a.BitwiseEqual(c));
}

TEST(TensorTest, BitwiseEqualComparesTypeAndBytes) {
  HostTensor a = HostTensor::Full(T(DType::kF32, {2, 2}), 1.0);
  EXPECT_FALSE(a.BitwiseEqual(HostTensor::Full(T(DType::kF32, {4}), 1.0)));
  EXPECT_FALSE(a.BitwiseEqual(HostTensor::Full(T(DType::kI32, {2, 2}), 1.0)));
  HostTensor nan1 = HostTensor::Full(T(DType::kF64, {1}), std::nan(""));
  HostTensor nan2 = HostTensor::Full(T(DType::kF64, {1}), std::nan(""));
  EXPECT_TRUE(nan1.BitwiseEqual(nan2));  // bytes, not IEEE equality
  HostTensor z1 = HostTensor::Full(T(DType::kF32, {1}), 0.0);
  HostTensor z2 = HostTensor::Full(T(DType::kF32, {1}), -0.0);
  EXPECT_FALSE(z1.BitwiseEqual(z2));
  EXPECT_TRUE(HostTensor(T(DType::kF32, {0})).BitwiseEqual(HostTensor(T(DType::kF32, {0}))));
}

TEST(TensorTest, FromBytesChecksSize) {
  std::vector<uint8_t> bytes(12);
  float values[3] = {1.0f, -2.0f, 0.25f};
  std::memcpy(bytes.data(), values, 12);
  absl::StatusOr<HostTensor> t = HostTensor::FromBytes(T(DType::kF32, {3}), bytes);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->GetDouble(1), -2.0);
  EXPECT_EQ(t->GetDouble(2), 0.25);
  absl::StatusOr<HostTensor> bad = HostTensor::FromBytes(T(DType::kF32, {4}), bytes);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "f32[4] needs 16 bytes, got 12");
  EXPECT_TRUE(HostTensor::FromBytes(T(DType::kI64, {0}), {}).ok());
}

TEST(TensorTest, FloatStorageRoundsToNearestEven) {
  HostTensor h(T(DType::kF16, {2}));
  h.SetDouble(0, 1.0 + std::ldexp(1.0, -11));
  h.SetDouble(1, 1e6);
  EXPECT_EQ(h.data<uint16_t>()[0], 0x3C00);
  EXPECT_EQ(h.GetDouble(1), std::numeric_limits<double>::infinity());
  HostTensor b(T(DType::kBF16, {1}));
  b.SetDouble(0, 1.0 + 3 * std::ldexp(1.0, -8));
  EXPECT_EQ(b.data<uint16_t>()[0], 0x3F82);
  HostTensor f(T(DType::kF32, {1}));
  f.SetDouble(0, 0.1);
  EXPECT_EQ(f.data<float>()[0], 0.1f);
}

TEST(TensorTest, FloatToIntTruncatesAndWraps) {
  HostTensor t(T(DType::kI32, {8}));
  t.SetDouble(0, 2.9);
  t.SetDouble(1, -2.9);
  t.SetDouble(2, 2147483648.0);   // 2^31 wraps to INT32_MIN
  t.SetDouble(3, -2147483649.0);  // wraps to INT32_MAX
  t.SetDouble(4, 4294967297.5);   // 2^32 + 1
  t.SetDouble(5, std::nan(""));
  t.SetDouble(6, std::numeric_limits<double>::infinity());
  t.SetDouble(7, 1e30);  // a multiple of 2^32, so its low 32 bits are 0
  EXPECT_EQ(t.GetInt(0), 2);
  EXPECT_EQ(t.GetInt(1), -2);
  EXPECT_EQ(t.GetInt(2), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(t.GetInt(3), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(t.GetInt(4), 1);
  EXPECT_EQ(t.GetInt(5), 0);
  EXPECT_EQ(t.GetInt(6), 0);
  EXPECT_EQ(t.GetInt(7), 0);

  HostTensor l(T(DType::kI64, {3}));
  l.SetDouble(0, 9223372036854775808.0);  // 2^63
  l.SetDouble(1, -9223372036854775808.0);
  l.SetDouble(2, 18446744073709551616.0 + 4096.0 * 2);  // 2^64 + 8192
  EXPECT_EQ(l.GetInt(0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(l.GetInt(1), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(l.GetInt(2), 8192);
}

TEST(TensorTest, IntegerSetIntWraps) {
  HostTensor t(T(DType::kI32, {2}));
  t.SetInt(0, (int64_t{1} << 32) + 5);
  t.SetInt(1, -(int64_t{1} << 31) - 1);
  EXPECT_EQ(t.GetInt(0), 5);
  EXPECT_EQ(t.GetInt(1), std::numeric_limits<int32_t>::max());
}

TEST(TensorTest, IntToFloatRoundsOnce) {
  HostTensor f(T(DType::kF32, {1}));
  f.SetInt(0, (int64_t{1} << 24) + 1);  // tie -> even
  EXPECT_EQ(f.GetDouble(0), 16777216.0);
  // 2^62 + 2^54 + 1 is just above a bf16 tie; rounding it to double first would
  // land on the tie and round down.
  HostTensor b(T(DType::kBF16, {1}));
  const int64_t v = (int64_t{1} << 62) + (int64_t{1} << 54) + 1;
  b.SetInt(0, v);
  EXPECT_EQ(b.GetDouble(0), std::ldexp(1.0, 62) + std::ldexp(1.0, 55));
  HostTensor d(T(DType::kF64, {1}));
  d.SetInt(0, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(d.GetDouble(0), -std::ldexp(1.0, 63));
}

TEST(TensorTest, BoolConversions) {
  HostTensor b(T(DType::kBool, {4}));
  b.SetDouble(0, 0.5);
  b.SetDouble(1, -0.0);
  b.SetDouble(2, std::nan(""));
  b.SetInt(3, 256);  // not truncated to a byte
  EXPECT_EQ(b.data<uint8_t>()[0], 1);
  EXPECT_EQ(b.data<uint8_t>()[1], 0);
  EXPECT_EQ(b.data<uint8_t>()[2], 1);
  EXPECT_EQ(b.data<uint8_t>()[3], 1);
  EXPECT_EQ(b.GetDouble(0), 1.0);
  EXPECT_EQ(b.GetInt(1), 0);
}

TEST(TensorTest, ConvertTo) {
  HostTensor src(T(DType::kF64, {4}));
  const double values[] = {1.5, -2.5, 1e10, 0.1};
  for (int i = 0; i < 4; ++i) src.SetDouble(i, values[i]);
  HostTensor i32 = src.ConvertTo(DType::kI32);
  EXPECT_EQ(i32.shape(), src.shape());
  EXPECT_EQ(i32.GetInt(0), 1);
  EXPECT_EQ(i32.GetInt(1), -2);
  EXPECT_EQ(i32.GetInt(2), static_cast<int32_t>(static_cast<uint32_t>(10000000000ull)));
  HostTensor f16 = src.ConvertTo(DType::kF16);
  EXPECT_EQ(f16.GetDouble(3), RoundToF16(0.1));
  EXPECT_EQ(f16.GetDouble(2), std::numeric_limits<double>::infinity());

  HostTensor big(T(DType::kI64, {1}));
  big.SetInt(0, (int64_t{1} << 53) + 1);  // not exact in double
  EXPECT_EQ(big.ConvertTo(DType::kI64).GetInt(0), (int64_t{1} << 53) + 1);
  EXPECT_EQ(big.ConvertTo(DType::kI32).GetInt(0), 1);
  EXPECT_EQ(big.ConvertTo(DType::kBool).GetInt(0), 1);
  EXPECT_EQ(big.ConvertTo(DType::kF64).GetDouble(0), std::ldexp(1.0, 53));
}

// Pinned values: the generator is splitmix64 and a uniform draw is
// low + (high - low) * (next >> 11) * 2^-53, rounded to the dtype.
TEST(TensorTest, RandomGoldenValues) {
  HostTensor f64 = HostTensor::Random(T(DType::kF64, {4}), 42);
  EXPECT_EQ(f64.GetDouble(0), 0.4831297575436466);
  EXPECT_EQ(f64.GetDouble(1), -0.6801792142461598);
  EXPECT_EQ(f64.GetDouble(3), -0.31161856695272494);
  HostTensor f32 = HostTensor::Random(T(DType::kF32, {4}), 42);
  EXPECT_EQ(f32.data<float>()[0], 0.4831297695636749f);
  EXPECT_EQ(f32.data<float>()[2], -0.4427977502346039f);
  RandomSpec digits;
  digits.low = 0;
  digits.high = 9;
  HostTensor i32 = HostTensor::Random(T(DType::kI32, {4}), 42, digits);
  EXPECT_EQ(i32.GetInt(0), 7);
  EXPECT_EQ(i32.GetInt(1), 1);
  EXPECT_EQ(i32.GetInt(2), 2);
  EXPECT_EQ(i32.GetInt(3), 3);
}

TEST(TensorTest, RandomIsDeterministicAndSeedDependent) {
  const TensorType type = T(DType::kBF16, {3, 5, 7});
  for (auto dist : {RandomSpec::Distribution::kUniform, RandomSpec::Distribution::kNormal}) {
    RandomSpec spec;
    spec.distribution = dist;
    EXPECT_TRUE(HostTensor::Random(type, 9, spec).BitwiseEqual(HostTensor::Random(type, 9, spec)));
    EXPECT_FALSE(HostTensor::Random(type, 9, spec).BitwiseEqual(HostTensor::Random(type, 10, spec)));
  }
}

struct Moments {
  double min, max, mean, stddev;
};

Moments Measure(const HostTensor& t) {
  Moments m{1e300, -1e300, 0, 0};
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const double v = t.GetDouble(i);
    m.min = std::min(m.min, v);
    m.max = std::max(m.max, v);
    m.mean += v / n;
  }
  for (int64_t i = 0; i < n; ++i) m.stddev += std::pow(t.GetDouble(i) - m.mean, 2) / n;
  m.stddev = std::sqrt(m.stddev);
  return m;
}

TEST(TensorTest, UniformRanges) {
  RandomSpec spec;
  spec.low = 2.0;
  spec.high = 5.0;
  const Moments f = Measure(HostTensor::Random(T(DType::kF64, {100000}), 1, spec));
  EXPECT_GE(f.min, 2.0);
  EXPECT_LT(f.max, 5.0);
  EXPECT_NEAR(f.mean, 3.5, 0.02);
  EXPECT_NEAR(f.stddev, 3.0 / std::sqrt(12.0), 0.01);

  spec.low = -2.5;  // integers: [ceil(low), floor(high)] = [-2, 5]
  const Moments i = Measure(HostTensor::Random(T(DType::kI64, {100000}), 1, spec));
  EXPECT_EQ(i.min, -2);
  EXPECT_EQ(i.max, 5);
  EXPECT_NEAR(i.mean, 1.5, 0.03);

  const Moments b = Measure(HostTensor::Random(T(DType::kBool, {100000}), 1, spec));
  EXPECT_EQ(b.min, 0);
  EXPECT_EQ(b.max, 1);
  EXPECT_NEAR(b.mean, 0.5, 0.01);
}

TEST(TensorTest, NormalMoments) {
  RandomSpec spec;
  spec.distribution = RandomSpec::Distribution::kNormal;
  spec.low = 3.0;   // mean
  spec.high = 0.5;  // stddev
  const Moments m = Measure(HostTensor::Random(T(DType::kF32, {100001}), 5, spec));
  EXPECT_NEAR(m.mean, 3.0, 0.01);
  EXPECT_NEAR(m.stddev, 0.5, 0.01);
  EXPECT_GT(m.min, 3.0 - 0.5 * 7);
  EXPECT_LT(m.max, 3.0 + 0.5 * 7);
  const Moments i = Measure(HostTensor::Random(T(DType::kI32, {100000}), 5, spec));
  EXPECT_NEAR(i.mean, 3.0, 0.02);
}

TEST(TensorTest, Summary) {
  HostTensor t(T(DType::kF32, {2, 4}));
  for (int i = 0; i < 8; ++i) t.SetDouble(i, i * 0.5 - 1);
  EXPECT_EQ(t.Summary(3), "f32[2,4] min=-1 max=2.5 mean=0.75 [-1, -0.5, 0, ...]");
  EXPECT_EQ(t.Summary(8), "f32[2,4] min=-1 max=2.5 mean=0.75 [-1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5]");
  HostTensor i(T(DType::kI32, {2}));
  i.SetInt(0, -3);
  i.SetInt(1, 4);
  EXPECT_EQ(i.Summary(), "i32[2] min=-3 max=4 mean=0.5 [-3, 4]");
  HostTensor n = HostTensor::Full(T(DType::kF64, {2}), std::nan(""));
  n.SetDouble(1, 2.0);
  EXPECT_EQ(n.Summary(), "f64[2] min=2 max=2 mean=2 nan=1 [nan, 2]");
  EXPECT_EQ(HostTensor(T(DType::kF16, {0, 3})).Summary(), "f16[0,3] (empty)");
}

}  // namespace
}  // namespace rk::compiler
