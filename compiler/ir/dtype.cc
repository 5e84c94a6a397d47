#include "compiler/ir/dtype.h"

namespace rk::compiler {

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kF32: return "f32";
    case DType::kF64: return "f64";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
    case DType::kBool: return "bool";
  }
  return "?";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (DType d : kAllDTypes) {
    if (DTypeName(d) == name) return d;
  }
  return std::nullopt;
}

int DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF16:
    case DType::kBF16: return 2;
    case DType::kF32:
    case DType::kI32: return 4;
    case DType::kF64:
    case DType::kI64: return 8;
    case DType::kBool: return 1;
  }
  return 0;
}

bool IsFloat(DType dtype) {
  return dtype == DType::kF16 || dtype == DType::kBF16 || dtype == DType::kF32 ||
         dtype == DType::kF64;
}

bool IsInteger(DType dtype) { return dtype == DType::kI32 || dtype == DType::kI64; }

bool IsLowPrecision(DType dtype) { return dtype == DType::kF16 || dtype == DType::kBF16; }

}  // namespace rk::compiler
