// Element access and index computation shared by the reference kernels.
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/ir/half.h"
#include "compiler/reference/kernels.h"

namespace rk::compiler::reference_internal {
namespace {

template <typename T, typename Convert>
void ReadAll(const HostTensor& t, Convert convert, auto* out) {
  const T* data = t.data<T>();
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) (*out)[i] = convert(data[i]);
}

}  // namespace

std::vector<double> ReadDoubles(const HostTensor& t) {
  std::vector<double> out(t.num_elements());
  if (out.empty()) return out;
  switch (t.dtype()) {
    case DType::kF16: ReadAll<uint16_t>(t, [](uint16_t v) { return HalfToDouble(v); }, &out); break;
    case DType::kBF16:
      ReadAll<uint16_t>(t, [](uint16_t v) { return BFloat16ToDouble(v); }, &out);
      break;
    case DType::kF32: ReadAll<float>(t, [](float v) { return double{v}; }, &out); break;
    case DType::kF64: ReadAll<double>(t, [](double v) { return v; }, &out); break;
    case DType::kI32: ReadAll<int32_t>(t, [](int32_t v) { return double(v); }, &out); break;
    case DType::kI64:
      ReadAll<int64_t>(t, [](int64_t v) { return static_cast<double>(v); }, &out);
      break;
    case DType::kBool: ReadAll<uint8_t>(t, [](uint8_t v) { return v ? 1.0 : 0.0; }, &out); break;
  }
  return out;
}

std::vector<int64_t> ReadInts(const HostTensor& t) {
  std::vector<int64_t> out(t.num_elements());
  if (out.empty()) return out;
  switch (t.dtype()) {
    case DType::kI32: ReadAll<int32_t>(t, [](int32_t v) { return int64_t{v}; }, &out); break;
    case DType::kI64: ReadAll<int64_t>(t, [](int64_t v) { return v; }, &out); break;
    case DType::kBool:
      ReadAll<uint8_t>(t, [](uint8_t v) { return int64_t{v != 0}; }, &out);
      break;
    default: {
      std::vector<double> d = ReadDoubles(t);
      for (size_t i = 0; i < d.size(); ++i) out[i] = CastDoubleToInt(d[i], DType::kI64);
    }
  }
  return out;
}

int64_t WrapInt(int64_t v, DType dtype) {
  switch (dtype) {
    case DType::kI32: return static_cast<int32_t>(static_cast<uint32_t>(v));
    case DType::kBool: return v != 0;
    default: return v;
  }
}

int64_t CastDoubleToInt(double v, DType dtype) {
  if (dtype == DType::kBool) return v != 0;  // NaN != 0 holds: NaN is true
  if (!std::isfinite(v)) return 0;
  double t = std::trunc(v);
  constexpr double kTwo63 = 9223372036854775808.0;
  if (t >= -kTwo63 && t < kTwo63) return WrapInt(static_cast<int64_t>(t), dtype);
  // |t| >= 2^63 is an integer-valued double: reduce it modulo 2^64 exactly.
  constexpr double kTwo64 = 18446744073709551616.0;
  double r = std::fmod(t, kTwo64);
  if (r < 0) r += kTwo64;
  uint64_t bits = r >= kTwo64 ? 0 : static_cast<uint64_t>(r);
  return WrapInt(static_cast<int64_t>(bits), dtype);
}

void WriteDoubles(HostTensor& t, absl::Span<const double> values) {
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DType::kF16: {
      uint16_t* d = t.data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = DoubleToHalf(values[i]);
      break;
    }
    case DType::kBF16: {
      uint16_t* d = t.data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = DoubleToBFloat16(values[i]);
      break;
    }
    case DType::kF32: {
      float* d = t.data<float>();
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(values[i]);
      break;
    }
    case DType::kF64: {
      if (n > 0) std::memcpy(t.raw_data(), values.data(), n * sizeof(double));
      break;
    }
    case DType::kI32: {
      int32_t* d = t.data<int32_t>();
      for (int64_t i = 0; i < n; ++i)
        d[i] = static_cast<int32_t>(CastDoubleToInt(values[i], DType::kI32));
      break;
    }
    case DType::kI64: {
      int64_t* d = t.data<int64_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = CastDoubleToInt(values[i], DType::kI64);
      break;
    }
    case DType::kBool: {
      uint8_t* d = t.data<uint8_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = values[i] != 0;
      break;
    }
  }
}

void WriteInts(HostTensor& t, absl::Span<const int64_t> values) {
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DType::kI32: {
      int32_t* d = t.data<int32_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<int32_t>(WrapInt(values[i], DType::kI32));
      break;
    }
    case DType::kI64: {
      if (n > 0) std::memcpy(t.raw_data(), values.data(), n * sizeof(int64_t));
      break;
    }
    case DType::kBool: {
      uint8_t* d = t.data<uint8_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = values[i] != 0;
      break;
    }
    case DType::kF32: {
      // A direct int64 -> float conversion rounds once (via double it could
      // round twice for |v| > 2^53).
      float* d = t.data<float>();
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(values[i]);
      break;
    }
    default: {
      // f64 rounds once; f16/bf16 cannot hold 2^53, so rounding through the
      // double is the only rounding that matters.
      std::vector<double> d(n);
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<double>(values[i]);
      WriteDoubles(t, d);
    }
  }
}

std::vector<int64_t> StridedIndices(absl::Span<const int64_t> out_dims,
                                    absl::Span<const int64_t> strides, int64_t offset) {
  int64_t n = 1;
  for (int64_t d : out_dims) n *= d;
  std::vector<int64_t> result(n);
  if (n == 0) return result;
  const int rank = static_cast<int>(out_dims.size());
  std::vector<int64_t> index(rank, 0);
  int64_t current = offset;
  for (int64_t i = 0; i < n; ++i) {
    result[i] = current;
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < out_dims[d]) {
        current += strides[d];
        break;
      }
      current -= strides[d] * (out_dims[d] - 1);
      index[d] = 0;
    }
  }
  return result;
}

absl::StatusOr<std::vector<int64_t>> BroadcastIndices(const Shape& in, const Shape& out) {
  const int lead = out.rank() - in.rank();
  if (lead < 0) {
    return absl::InternalError(
        absl::StrCat("cannot broadcast ", in.ToString(), " to ", out.ToString()));
  }
  std::vector<int64_t> in_strides = in.Strides();
  std::vector<int64_t> strides(out.rank(), 0);
  for (int d = lead; d < out.rank(); ++d) {
    int64_t in_dim = in.dim(d - lead);
    if (in_dim == out.dim(d)) {
      strides[d] = in_strides[d - lead];
    } else if (in_dim != 1) {
      return absl::InternalError(
          absl::StrCat("cannot broadcast ", in.ToString(), " to ", out.ToString()));
    }
  }
  return StridedIndices(out.dims(), strides);
}

namespace {

template <typename T>
void GatherTyped(const HostTensor& in, HostTensor& out, absl::Span<const int64_t> indices) {
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  for (size_t i = 0; i < indices.size(); ++i) dst[i] = src[indices[i]];
}

}  // namespace

HostTensor GatherElements(const HostTensor& in, const TensorType& out_type,
                          absl::Span<const int64_t> indices) {
  HostTensor out(out_type);
  if (indices.empty()) return out;
  switch (DTypeSize(in.dtype())) {
    case 1: GatherTyped<uint8_t>(in, out, indices); break;
    case 2: GatherTyped<uint16_t>(in, out, indices); break;
    case 4: GatherTyped<uint32_t>(in, out, indices); break;
    default: GatherTyped<uint64_t>(in, out, indices); break;
  }
  return out;
}

absl::Status ExpectType(const HostTensor& t, const TensorType& type, const char* what) {
  if (t.type() == type) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": value has type ", t.type().ToString(),
                                          ", expected ", type.ToString()));
}

}  // namespace rk::compiler::reference_internal
