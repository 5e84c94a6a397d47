#include "compiler/ir/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include <sys/mman.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/ir/half.h"

namespace rk::compiler {
namespace {

constexpr size_t kAlignment = 64;
// Large tensors are placed on 2 MiB boundaries and marked for transparent huge
// pages: first touching a fresh 64 MiB output otherwise takes 16K page faults,
// which cost more than the kernel that fills it.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeThreshold = 4 * kHugePage;

std::shared_ptr<uint8_t> AllocateAligned(int64_t byte_size, bool zero = true) {
  // Never zero bytes, so a tensor with no elements still has storage and
  // data() is a valid, aligned pointer.
  size_t size = static_cast<size_t>(byte_size);
  size = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (size == 0) size = kAlignment;
  const std::align_val_t alignment{size >= kHugeThreshold ? kHugePage : kAlignment};
  void* p = ::operator new(size, alignment);
#ifdef MADV_HUGEPAGE
  if (size >= kHugeThreshold) madvise(p, size, MADV_HUGEPAGE);  // only advice: failure is fine
#endif
  if (zero) std::memset(p, 0, size);
  return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [alignment](uint8_t* q) {
    ::operator delete(q, alignment);
  });
}

// Truncates toward zero and wraps modulo 2^64; NaN and Inf give 0. The
// narrower integer types then keep the low bits, which is the same as
// wrapping modulo their own width.
int64_t DoubleToWrappedInt(double v) {
  if (!std::isfinite(v)) return 0;
  const double t = std::trunc(v);
  constexpr double kTwo63 = 9223372036854775808.0;
  if (t >= -kTwo63 && t < kTwo63) return static_cast<int64_t>(t);
  constexpr double kTwo64 = 18446744073709551616.0;
  double m = std::fmod(t, kTwo64);  // exact
  if (m < 0) m += kTwo64;           // exact: both are multiples of a power of two >= 1
  return static_cast<int64_t>(m >= kTwo63 ? static_cast<uint64_t>(m - kTwo63) + (uint64_t{1} << 63)
                                          : static_cast<uint64_t>(m));
}

// int64 -> double rounding to odd: exact below 2^53, otherwise the lowest kept
// bit records whether anything was dropped. A second rounding to a format of
// at most 24 bits is then correct (no double-rounding error).
double IntToDoubleRoundToOdd(int64_t v) {
  const bool negative = v < 0;
  uint64_t u = negative ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int shift = 0;
  while ((u >> shift) >= (uint64_t{1} << 53)) ++shift;
  if (shift > 0) {
    const uint64_t kept = u >> shift;
    const bool dropped = (u & ((uint64_t{1} << shift) - 1)) != 0;
    u = (kept | (dropped ? 1 : 0)) << shift;
  }
  const double d = std::ldexp(static_cast<double>(u >> shift), shift);
  return negative ? -d : d;
}

// splitmix64: small, fast and fully specified, so the stream is the same on
// every platform and standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // [0, 1) with 53 random bits.
  double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // (0, 1], never 0 so its log is finite.
  double NextUnitOpenZero() { return static_cast<double>((Next() >> 11) + 1) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

void FillUniformFloat(HostTensor& t, SplitMix64& rng, double low, double high) {
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetDouble(i, low + (high - low) * rng.NextUnit());
}

// Box-Muller, both outputs of each pair used in order.
void FillNormal(HostTensor& t, SplitMix64& rng, double mean, double stddev, bool integral) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; i += 2) {
    const double r = std::sqrt(-2.0 * std::log(rng.NextUnitOpenZero()));
    const double theta = kTwoPi * rng.NextUnit();
    const double z[2] = {r * std::cos(theta), r * std::sin(theta)};
    for (int k = 0; k < 2 && i + k < n; ++k) {
      const double v = mean + stddev * z[k];
      t.SetDouble(i + k, integral ? std::round(v) : v);
    }
  }
}

void FillUniformInt(HostTensor& t, SplitMix64& rng, double low, double high) {
  constexpr double kLimit = 9.2e18;  // inside int64 with room to spare
  const int64_t lo = static_cast<int64_t>(std::clamp(std::ceil(low), -kLimit, kLimit));
  const int64_t hi = static_cast<int64_t>(std::clamp(std::floor(high), -kLimit, kLimit));
  const uint64_t count = hi >= lo ? static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1 : 1;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const uint64_t offset =
        static_cast<uint64_t>((static_cast<unsigned __int128>(rng.Next()) * count) >> 64);
    t.SetInt(i, static_cast<int64_t>(static_cast<uint64_t>(lo) + offset));
  }
}

std::string FormatValue(double v, DType dtype) {
  if (!IsFloat(dtype)) return absl::StrCat(static_cast<int64_t>(v));
  return absl::StrFormat("%.6g", v);
}

}  // namespace

HostTensor::HostTensor(TensorType type) : type_(std::move(type)) {
  data_ = AllocateAligned(type_.byte_size() > 0 ? type_.byte_size() : 0);
}

HostTensor HostTensor::Uninitialized(TensorType type) {
  HostTensor t;
  t.type_ = std::move(type);
  t.data_ = AllocateAligned(t.type_.byte_size() > 0 ? t.type_.byte_size() : 0, /*zero=*/false);
  return t;
}

HostTensor HostTensor::Full(TensorType type, double value) {
  HostTensor t(std::move(type));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.SetDouble(i, value);
  return t;
}

absl::StatusOr<HostTensor> HostTensor::FromBytes(TensorType type,
                                                 absl::Span<const uint8_t> bytes) {
  for (int64_t d : type.shape.dims()) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("negative dimension in ", type.ToString()));
  }
  if (static_cast<int64_t>(bytes.size()) != type.byte_size()) {
    return absl::InvalidArgumentError(absl::StrCat(type.ToString(), " needs ", type.byte_size(),
                                                   " bytes, got ", bytes.size()));
  }
  HostTensor t = Uninitialized(std::move(type));  // every byte is written below
  if (!bytes.empty()) std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  return t;
}

HostTensor HostTensor::Random(TensorType type, uint64_t seed, const RandomSpec& spec) {
  HostTensor t(std::move(type));
  SplitMix64 rng(seed);
  const bool normal = spec.distribution == RandomSpec::Distribution::kNormal;
  if (t.dtype() == DType::kBool) {
    for (int64_t i = 0; i < t.num_elements(); ++i) t.SetInt(i, static_cast<int64_t>(rng.Next() >> 63));
  } else if (normal) {
    FillNormal(t, rng, spec.low, spec.high, IsInteger(t.dtype()));
  } else if (IsInteger(t.dtype())) {
    FillUniformInt(t, rng, spec.low, spec.high);
  } else {
    FillUniformFloat(t, rng, spec.low, spec.high);
  }
  return t;
}

double HostTensor::GetDouble(int64_t i) const {
  switch (dtype()) {
    case DType::kF16: return HalfToDouble(data<uint16_t>()[i]);
    case DType::kBF16: return BFloat16ToDouble(data<uint16_t>()[i]);
    case DType::kF32: return data<float>()[i];
    case DType::kF64: return data<double>()[i];
    case DType::kI32: return data<int32_t>()[i];
    case DType::kI64: return static_cast<double>(data<int64_t>()[i]);
    case DType::kBool: return data<uint8_t>()[i] != 0 ? 1.0 : 0.0;
  }
  return 0.0;
}

int64_t HostTensor::GetInt(int64_t i) const {
  switch (dtype()) {
    case DType::kI32: return data<int32_t>()[i];
    case DType::kI64: return data<int64_t>()[i];
    case DType::kBool: return data<uint8_t>()[i] != 0 ? 1 : 0;
    default: return DoubleToWrappedInt(GetDouble(i));
  }
}

void HostTensor::SetDouble(int64_t i, double v) {
  switch (dtype()) {
    case DType::kF16: data<uint16_t>()[i] = DoubleToHalf(v); return;
    case DType::kBF16: data<uint16_t>()[i] = DoubleToBFloat16(v); return;
    case DType::kF32: data<float>()[i] = static_cast<float>(v); return;
    case DType::kF64: data<double>()[i] = v; return;
    case DType::kI32: data<int32_t>()[i] = static_cast<int32_t>(DoubleToWrappedInt(v)); return;
    case DType::kI64: data<int64_t>()[i] = DoubleToWrappedInt(v); return;
    case DType::kBool: data<uint8_t>()[i] = v != 0 ? 1 : 0; return;
  }
}

void HostTensor::SetInt(int64_t i, int64_t v) {
  switch (dtype()) {
    case DType::kF16: data<uint16_t>()[i] = DoubleToHalf(IntToDoubleRoundToOdd(v)); return;
    case DType::kBF16: data<uint16_t>()[i] = DoubleToBFloat16(IntToDoubleRoundToOdd(v)); return;
    case DType::kF32: data<float>()[i] = static_cast<float>(v); return;
    case DType::kF64: data<double>()[i] = static_cast<double>(v); return;
    case DType::kI32: data<int32_t>()[i] = static_cast<int32_t>(v); return;
    case DType::kI64: data<int64_t>()[i] = v; return;
    case DType::kBool: data<uint8_t>()[i] = v != 0 ? 1 : 0; return;
  }
}

HostTensor HostTensor::ConvertTo(DType dtype) const {
  HostTensor out(TensorType(dtype, shape()));
  const bool exact_int = !IsFloat(this->dtype());
  for (int64_t i = 0; i < num_elements(); ++i) {
    if (exact_int) {
      out.SetInt(i, GetInt(i));
    } else {
      out.SetDouble(i, GetDouble(i));
    }
  }
  return out;
}

HostTensor HostTensor::Clone() const {
  if (data_ == nullptr) {
    HostTensor empty;  // a clone of a tensor without storage has none either
    empty.type_ = type_;
    return empty;
  }
  HostTensor out(type_);
  if (byte_size() > 0) std::memcpy(out.raw_data(), raw_data(), byte_size());
  return out;
}

bool HostTensor::BitwiseEqual(const HostTensor& other) const {
  if (type_ != other.type_) return false;
  if (byte_size() <= 0) return true;
  if (data_ == other.data_) return true;
  if (data_ == nullptr || other.data_ == nullptr) return false;
  return std::memcmp(raw_data(), other.raw_data(), byte_size()) == 0;
}

std::string HostTensor::Summary(int max_values) const {
  std::string out = type_.ToString();
  if (!valid()) return absl::StrCat(out, " <no storage>");
  const int64_t n = num_elements();
  if (n == 0) return absl::StrCat(out, " (empty)");
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  double sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = GetDouble(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  if (nans < n) {
    absl::StrAppend(&out, " min=", FormatValue(lo, dtype()), " max=", FormatValue(hi, dtype()),
                    " mean=", absl::StrFormat("%.6g", sum / static_cast<double>(n - nans)));
  }
  if (nans > 0) absl::StrAppend(&out, " nan=", nans);
  absl::StrAppend(&out, " [");
  const int64_t shown = std::min<int64_t>(n, std::max(max_values, 0));
  for (int64_t i = 0; i < shown; ++i) {
    absl::StrAppend(&out, i > 0 ? ", " : "",
                    IsFloat(dtype()) ? FormatValue(GetDouble(i), dtype())
                                     : absl::StrCat(GetInt(i)));
  }
  if (shown < n) absl::StrAppend(&out, shown > 0 ? ", ..." : "...");
  absl::StrAppend(&out, "]");
  return out;
}

}  // namespace rk::compiler
