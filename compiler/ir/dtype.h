// Element types of tensors: f16, bf16, f32, f64, i32, i64, bool.
//
// Tested by compiler/ir/dtype_test.cc.
#ifndef REPROKIT_COMPILER_IR_DTYPE_H_
#define REPROKIT_COMPILER_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace rk::compiler {

enum class DType : uint8_t { kF16, kBF16, kF32, kF64, kI32, kI64, kBool };

inline constexpr DType kAllDTypes[] = {DType::kF16, DType::kBF16, DType::kF32, DType::kF64,
                                       DType::kI32, DType::kI64,  DType::kBool};

// The text-format spelling: "f16", "bf16", "f32", "f64", "i32", "i64", "bool".
std::string_view DTypeName(DType dtype);
std::optional<DType> ParseDType(std::string_view name);

// Bytes per element in host storage (bool is one byte, 0 or 1).
int DTypeSize(DType dtype);
bool IsFloat(DType dtype);
bool IsInteger(DType dtype);  // i32, i64 (not bool)
// f16 and bf16: stored in 16 bits, computed in f32 unless asked otherwise.
bool IsLowPrecision(DType dtype);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_DTYPE_H_
