// Host tensors: a TensorType plus contiguous, row-major, 64-byte-aligned
// storage. f16/bf16 are stored as their 16-bit patterns, bool as one byte (0/1).
//
// Copies share storage (cheap, like a shared_ptr); Clone() copies bytes.
// Element access by flat index converts through double (GetDouble/SetDouble)
// or int64 (GetInt/SetInt) so generic code can read any dtype; the fast paths
// use data<T>() directly.
//
// Numeric conventions shared by every component that computes on tensors
// (reference interpreter, constant folding, codegen):
// - Float -> integer (SetDouble, cast): truncate toward zero, then wrap modulo
//   2^bits (two's complement); NaN and +-Inf give 0. No saturation, no trap.
//   GetInt on a float element applies the same rule with 64 bits.
// - Integer -> float: round to nearest even (one rounding, even from i64).
// - Anything -> bool: v != 0 (so NaN -> true); bool -> number: 0 or 1.
// - Integer arithmetic wraps modulo 2^bits (add, sub, mul, neg, abs of the
//   minimum value stays the minimum value). Integer division truncates toward
//   zero; x / 0 == 0 and x % 0 == 0 for integers, and INT_MIN / -1 == INT_MIN
//   (wraps); nothing traps.
// - Random: uniform values are drawn in double then rounded to the dtype, so a
//   narrow dtype may round a value up to `high`.
//
// Tested by compiler/ir/tensor_test.cc.
#ifndef REPROKIT_COMPILER_IR_TENSOR_H_
#define REPROKIT_COMPILER_IR_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/shape.h"

namespace rk::compiler {

// How RandomFill draws values.
struct RandomSpec {
  enum class Distribution { kUniform, kNormal };
  Distribution distribution = Distribution::kUniform;
  double low = -1.0;   // uniform: [low, high); normal: mean = low, stddev = high
  double high = 1.0;
  // For integer dtypes the uniform range is [ceil(low), floor(high)]; for bool
  // values are 0/1 with probability 1/2.
};

class HostTensor {
 public:
  HostTensor() = default;  // an empty f32 scalar with no storage; valid() is false
  // Zero-filled storage for `type`.
  explicit HostTensor(TensorType type);

  static HostTensor Zeros(TensorType type) { return HostTensor(std::move(type)); }
  // Storage with unspecified contents, for producers that store every element
  // (compiled programs' outputs): skips the zero fill, which for large outputs
  // costs as much memory traffic as the kernel writing them.
  static HostTensor Uninitialized(TensorType type);
  // Every element set to `value` (converted to dtype, rounding to nearest even).
  static HostTensor Full(TensorType type, double value);
  // From raw bytes; they must be exactly type.byte_size().
  static absl::StatusOr<HostTensor> FromBytes(TensorType type, absl::Span<const uint8_t> bytes);
  // Deterministic for a given (type, seed, spec) on every machine.
  static HostTensor Random(TensorType type, uint64_t seed, const RandomSpec& spec = {});

  bool valid() const { return data_ != nullptr || type_.byte_size() == 0; }
  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  int64_t num_elements() const { return type_.num_elements(); }
  int64_t byte_size() const { return type_.byte_size(); }

  void* raw_data() { return data_.get(); }
  const void* raw_data() const { return data_.get(); }
  absl::Span<const uint8_t> bytes() const {
    return {static_cast<const uint8_t*>(raw_data()), static_cast<size_t>(byte_size())};
  }
  template <typename T>
  T* data() {
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(raw_data());
  }

  // Element `i` (flat, row-major) as double / int64; any dtype.
  double GetDouble(int64_t i) const;
  int64_t GetInt(int64_t i) const;
  // Stores `v` converted to the dtype: floats round to nearest even (f16/bf16
  // keep NaN and Inf; overflow goes to Inf); integers truncate toward zero and
  // wrap modulo 2^bits; bool is v != 0.
  void SetDouble(int64_t i, double v);
  void SetInt(int64_t i, int64_t v);

  // A new tensor with the same shape in `dtype`, converted element by element
  // with SetDouble's rules (integer to integer goes through SetInt, exactly).
  HostTensor ConvertTo(DType dtype) const;
  // A deep copy.
  HostTensor Clone() const;
  // Same dtype, shape and bytes.
  bool BitwiseEqual(const HostTensor& other) const;

  // Short summary: "f32[8,128] min=-1.2 max=3.4 mean=0.01 [0.1, 0.2, ...]".
  std::string Summary(int max_values = 6) const;

 private:
  TensorType type_;
  std::shared_ptr<uint8_t> data_;  // 64-byte aligned
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_TENSOR_H_
