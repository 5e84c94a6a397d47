#include "compiler/ir/literal.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "compiler/ir/half.h"

namespace rk::compiler {
namespace {

// Makes sure a finite number reads back as a float, not an int.
std::string FloatLooking(std::string text) {
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

std::string SpecialName(bool negative, bool is_nan) {
  return absl::StrCat(negative ? "-" : "", is_nan ? "nan" : "inf");
}

template <typename T>
std::string ShortestText(T value) {
  if (std::isnan(value) || std::isinf(value)) {
    return SpecialName(std::signbit(value), std::isnan(value));
  }
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  return FloatLooking(std::string(buf, result.ptr));
}

// Parses as float, then converts to 16 bits: the same path ParseElement takes.
uint16_t SixteenBitsFromText(const char* text, DType dtype) {
  float f = 0;
  std::from_chars(text, text + std::strlen(text), f);
  return dtype == DType::kF16 ? FloatToHalf(f) : FloatToBFloat16(f);
}

std::string SixteenBitText(uint16_t bits, DType dtype) {
  double value = dtype == DType::kF16 ? HalfToDouble(bits) : BFloat16ToDouble(bits);
  if (std::isnan(value) || std::isinf(value)) {
    return SpecialName((bits & 0x8000) != 0, std::isnan(value));
  }
  char buf[64];
  for (int precision = 1; precision < 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    if (SixteenBitsFromText(buf, dtype) == bits) break;
  }
  std::string shortest = buf;
  // Prefer plain digits ("65504.0") to an exponent ("6.55e+04") when the
  // value's own float spelling has none; any float spelling is exact here.
  std::string as_float = ShortestText(static_cast<float>(value));
  if (shortest.find('e') != std::string::npos && as_float.find('e') == std::string::npos) {
    return as_float;
  }
  return FloatLooking(shortest);
}

bool SplitSign(std::string_view& text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  return negative;
}

// Parses a float of type T; `special` is set for inf/nan.
template <typename T>
absl::StatusOr<T> ParseFloating(std::string_view text) {
  std::string_view body = text;
  bool negative = SplitSign(body);
  if (body == "inf") {
    return negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  }
  if (body == "nan") {
    return std::copysign(std::numeric_limits<T>::quiet_NaN(), negative ? T(-1) : T(1));
  }
  if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body[0])) || body[0] == '.')) {
    return absl::InvalidArgumentError(absl::StrCat("malformed number '", std::string(text), "'"));
  }
  T value = 0;
  auto result = std::from_chars(body.data(), body.data() + body.size(), value);
  if (result.ec == std::errc::result_out_of_range) {
    return absl::InvalidArgumentError(absl::StrCat("number '", std::string(text), "' is out of range"));
  }
  if (result.ec != std::errc() || result.ptr != body.data() + body.size()) {
    return absl::InvalidArgumentError(absl::StrCat("malformed number '", std::string(text), "'"));
  }
  return negative ? -value : value;
}

absl::StatusOr<int64_t> ParseInteger(std::string_view text, DType dtype) {
  std::string_view body = text;
  if (!body.empty() && body[0] == '+') body.remove_prefix(1);
  int64_t value = 0;
  auto result = std::from_chars(body.data(), body.data() + body.size(), value);
  if (result.ec == std::errc::result_out_of_range ||
      (result.ec == std::errc() && dtype == DType::kI32 &&
       (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("value ", std::string(text), " is out of range for ", std::string(DTypeName(dtype))));
  }
  if (result.ec != std::errc() || result.ptr != body.data() + body.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected an integer for ", std::string(DTypeName(dtype)), ", got '", std::string(text), "'"));
  }
  return value;
}

}  // namespace

std::string FormatDouble(double value) { return ShortestText(value); }

std::string FormatElement(const HostTensor& tensor, int64_t i) {
  switch (tensor.dtype()) {
    case DType::kF16:
    case DType::kBF16: return SixteenBitText(tensor.data<uint16_t>()[i], tensor.dtype());
    case DType::kF32: return ShortestText(tensor.data<float>()[i]);
    case DType::kF64: return ShortestText(tensor.data<double>()[i]);
    case DType::kI32: return absl::StrCat(tensor.data<int32_t>()[i]);
    case DType::kI64: return absl::StrCat(tensor.data<int64_t>()[i]);
    case DType::kBool: return tensor.data<uint8_t>()[i] != 0 ? "true" : "false";
  }
  return "?";
}

absl::StatusOr<double> ParseDouble(std::string_view text) { return ParseFloating<double>(text); }

absl::Status ParseElement(std::string_view text, HostTensor& tensor, int64_t i) {
  DType dtype = tensor.dtype();
  switch (dtype) {
    case DType::kBool:
      if (text != "true" && text != "false") {
        return absl::InvalidArgumentError(
            absl::StrCat("expected true or false for bool, got '", std::string(text), "'"));
      }
      tensor.data<uint8_t>()[i] = text == "true";
      return absl::OkStatus();
    case DType::kI32:
    case DType::kI64: {
      absl::StatusOr<int64_t> v = ParseInteger(text, dtype);
      if (!v.ok()) return v.status();
      if (dtype == DType::kI32) {
        tensor.data<int32_t>()[i] = static_cast<int32_t>(*v);
      } else {
        tensor.data<int64_t>()[i] = *v;
      }
      return absl::OkStatus();
    }
    case DType::kF64: {
      absl::StatusOr<double> v = ParseFloating<double>(text);
      if (!v.ok()) return v.status();
      tensor.data<double>()[i] = *v;
      return absl::OkStatus();
    }
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16: {
      absl::StatusOr<float> v = ParseFloating<float>(text);
      if (!v.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(v.status().message(), " for ", std::string(DTypeName(dtype))));
      }
      if (dtype == DType::kF32) {
        tensor.data<float>()[i] = *v;
      } else if (std::isnan(*v)) {
        uint16_t sign = std::signbit(*v) ? 0x8000 : 0;
        tensor.data<uint16_t>()[i] = sign | (dtype == DType::kF16 ? 0x7e00 : 0x7fc0);
      } else {
        const uint16_t bits = dtype == DType::kF16 ? FloatToHalf(*v) : FloatToBFloat16(*v);
        const double stored = dtype == DType::kF16 ? HalfToDouble(bits) : BFloat16ToDouble(bits);
        // A finite literal must stay finite: 70000 is inf in f16, silently.
        if (std::isfinite(*v) && !std::isfinite(stored)) {
          return absl::InvalidArgumentError(absl::StrCat("number '", std::string(text),
                                                         "' overflows ", std::string(DTypeName(dtype))));
        }
        tensor.data<uint16_t>()[i] = bits;
      }
      return absl::OkStatus();
    }
  }
  return absl::InternalError("unknown dtype");
}

std::string QuoteString(std::string_view raw) {
  std::string out = "\"";
  for (char ch : raw) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace rk::compiler
