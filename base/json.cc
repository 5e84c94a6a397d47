#include "base/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rk {
namespace {

// Arrays of scalars print on one line in pretty mode when they fit.
constexpr size_t kInlineArrayWidth = 100;

absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

void AppendDouble(double v, std::string& out) {
  if (std::isnan(v)) {
    out += "\"NaN\"";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    return;
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  size_t n;
  if (ec == std::errc()) {
    n = static_cast<size_t>(end - buf);
  } else {
    n = static_cast<size_t>(std::snprintf(buf, sizeof(buf), "%.17g", v));
  }
  std::string_view text(buf, n);
  out.append(text);
  if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

void AppendString(std::string_view s, std::string& out) {
  out += '"';
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", u);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

bool IsScalar(const Json& v) { return !v.is_array() && !v.is_object(); }

void Dump(const Json& v, bool pretty, int indent, std::string& out) {
  auto newline = [&](int level) {
    if (!pretty) return;
    out += '\n';
    out.append(static_cast<size_t>(level) * 2, ' ');
  };
  switch (v.type()) {
    case Json::Type::kNull: out += "null"; return;
    case Json::Type::kBool: out += v.bool_value() ? "true" : "false"; return;
    case Json::Type::kNumber:
      if (v.is_int()) {
        out += std::to_string(v.int_value());
      } else if (v.is_uint()) {
        out += std::to_string(v.uint_value());
      } else {
        AppendDouble(v.double_value(), out);
      }
      return;
    case Json::Type::kString: AppendString(v.string_value(), out); return;
    case Json::Type::kArray: {
      if (v.array().empty()) {
        out += "[]";
        return;
      }
      bool inline_array = !pretty;
      std::string one_line;
      if (pretty && std::all_of(v.array().begin(), v.array().end(), IsScalar)) {
        one_line = "[";
        for (size_t i = 0; i < v.array().size(); ++i) {
          if (i > 0) one_line += ", ";
          Dump(v.array()[i], false, 0, one_line);
        }
        one_line += "]";
        if (one_line.size() + static_cast<size_t>(indent) * 2 <= kInlineArrayWidth) {
          out += one_line;
          return;
        }
      }
      out += '[';
      for (size_t i = 0; i < v.array().size(); ++i) {
        if (i > 0) out += ',';
        if (!inline_array) newline(indent + 1);
        Dump(v.array()[i], pretty, indent + 1, out);
      }
      newline(indent);
      out += ']';
      return;
    }
    case Json::Type::kObject: {
      if (v.object().empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (const auto& [key, member] : v.object()) {
        if (!first) out += ',';
        first = false;
        newline(indent + 1);
        AppendString(key, out);
        out += pretty ? ": " : ":";
        Dump(member, pretty, indent + 1, out);
      }
      newline(indent);
      out += '}';
      return;
    }
  }
}

}  // namespace

Json::Json(unsigned long v) : Json(static_cast<unsigned long long>(v)) {}

Json::Json(unsigned long long v)
    : type_(Type::kNumber), has_uint_(true), number_(static_cast<double>(v)), uint_(v) {
  if (v <= static_cast<unsigned long long>(std::numeric_limits<int64_t>::max())) {
    has_int_ = true;
    int_ = static_cast<int64_t>(v);
  }
}

Json Json::MakeArray(Array elements) {
  Json j;
  j.type_ = Type::kArray;
  j.array_ = std::move(elements);
  return j;
}

Json Json::MakeObject() {
  Json j;
  j.type_ = Type::kObject;
  return j;
}

void Json::push_back(Json value) {
  if (type_ == Type::kNull) type_ = Type::kArray;
  array_.push_back(std::move(value));
}

size_t Json::size() const {
  if (type_ == Type::kArray) return array_.size();
  if (type_ == Type::kObject) return object_.size();
  return 0;
}

Json& Json::operator[](std::string_view key) {
  if (type_ == Type::kNull) type_ = Type::kObject;
  for (auto& [k, v] : object_) {
    if (k == key) return v;
  }
  object_.emplace_back(std::string(key), Json());
  return object_.back().second;
}

void Json::Set(std::string_view key, Json value) { (*this)[key] = std::move(value); }

const Json* Json::Find(std::string_view key) const {
  if (type_ != Type::kObject) return nullptr;
  for (const auto& [k, v] : object_) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool Json::Erase(std::string_view key) {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (it->first == key) {
      object_.erase(it);
      return true;
    }
  }
  return false;
}

absl::StatusOr<std::string> Json::GetString(std::string_view key) const {
  absl::StatusOr<JsonRef> f = JsonRef(*this).Field(key);
  if (!f.ok()) return f.status();
  return f->String();
}

absl::StatusOr<int64_t> Json::GetInt(std::string_view key) const {
  absl::StatusOr<JsonRef> f = JsonRef(*this).Field(key);
  if (!f.ok()) return f.status();
  return f->Int();
}

absl::StatusOr<double> Json::GetDouble(std::string_view key) const {
  absl::StatusOr<JsonRef> f = JsonRef(*this).Field(key);
  if (!f.ok()) return f.status();
  return f->Double();
}

absl::StatusOr<bool> Json::GetBool(std::string_view key) const {
  absl::StatusOr<JsonRef> f = JsonRef(*this).Field(key);
  if (!f.ok()) return f.status();
  return f->Bool();
}

std::string Json::Dump() const {
  std::string out;
  rk::Dump(*this, false, 0, out);
  return out;
}

std::string Json::DumpPretty() const {
  std::string out;
  rk::Dump(*this, true, 0, out);
  return out;
}

bool Json::operator==(const Json& other) const {
  if (type_ != other.type_) return false;
  switch (type_) {
    case Type::kNull: return true;
    case Type::kBool: return bool_ == other.bool_;
    case Type::kNumber:
      if (has_int_ && other.has_int_) return int_ == other.int_;
      if (has_uint_ && other.has_uint_) return uint_ == other.uint_;
      return number_ == other.number_ ||
             (std::isnan(number_) && std::isnan(other.number_));
    case Type::kString: return string_ == other.string_;
    case Type::kArray: return array_ == other.array_;
    case Type::kObject: return object_ == other.object_;
  }
  return false;
}

std::string_view Json::TypeName(Type type) {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kBool: return "bool";
    case Type::kNumber: return "number";
    case Type::kString: return "string";
    case Type::kArray: return "array";
    case Type::kObject: return "object";
  }
  return "?";
}

// ---------------------------------------------------------------- JsonRef

JsonRef::JsonRef(const Json& value, std::string document, std::string path)
    : value_(&value), document_(std::move(document)), path_(std::move(path)) {}

absl::Status JsonRef::Error(std::string_view message) const {
  std::string where = path_.empty() ? "(top level)" : path_;
  if (!document_.empty()) where = absl::StrCat(document_, ": ", where);
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", Absl(message)));
}

absl::Status JsonRef::TypeError(std::string_view expected) const {
  return Error(absl::StrCat("expected ", Absl(expected), ", got ",
                            Absl(Json::TypeName(value_->type()))));
}

std::string JsonRef::Child(std::string_view key) const {
  return path_.empty() ? std::string(key) : absl::StrCat(path_, ".", Absl(key));
}

absl::StatusOr<JsonRef> JsonRef::Field(std::string_view key) const {
  absl::StatusOr<std::optional<JsonRef>> f = OptionalField(key);
  if (!f.ok()) return f.status();
  if (!f->has_value()) {
    return JsonRef(*value_, document_, Child(key)).Error("missing required field");
  }
  return **f;
}

absl::StatusOr<std::optional<JsonRef>> JsonRef::OptionalField(std::string_view key) const {
  if (!value_->is_object()) return TypeError("object");
  const Json* member = value_->Find(key);
  if (member == nullptr || member->is_null()) return std::optional<JsonRef>();
  return std::optional<JsonRef>(JsonRef(*member, document_, Child(key)));
}

absl::StatusOr<JsonRef> JsonRef::Index(size_t i) const {
  if (!value_->is_array()) return TypeError("array");
  if (i >= value_->array().size()) {
    return Error(absl::StrCat("index ", i, " out of range (size ", value_->array().size(), ")"));
  }
  return JsonRef(value_->array()[i], document_, absl::StrCat(path_, "[", i, "]"));
}

absl::StatusOr<std::vector<JsonRef>> JsonRef::Elements() const {
  if (!value_->is_array()) return TypeError("array");
  std::vector<JsonRef> out;
  out.reserve(value_->array().size());
  for (size_t i = 0; i < value_->array().size(); ++i) {
    out.emplace_back(value_->array()[i], document_, absl::StrCat(path_, "[", i, "]"));
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, JsonRef>>> JsonRef::Members() const {
  if (!value_->is_object()) return TypeError("object");
  std::vector<std::pair<std::string, JsonRef>> out;
  for (const auto& [key, member] : value_->object()) {
    out.emplace_back(key, JsonRef(member, document_, Child(key)));
  }
  return out;
}

absl::StatusOr<std::string> JsonRef::String() const {
  if (!value_->is_string()) return TypeError("string");
  return value_->string_value();
}

absl::StatusOr<int64_t> JsonRef::Int() const {
  if (!value_->is_number()) return TypeError("integer");
  if (value_->is_int()) return value_->int_value();
  if (value_->is_uint()) {
    return Error(absl::StrCat("integer ", value_->uint_value(), " out of range of int64"));
  }
  double d = value_->double_value();
  constexpr double kExactLimit = 9007199254740992.0;  // 2^53
  if (std::trunc(d) != d || std::fabs(d) > kExactLimit) {
    return Error(absl::StrCat("expected an integer, got ", value_->Dump()));
  }
  return static_cast<int64_t>(d);
}

absl::StatusOr<uint64_t> JsonRef::Uint() const {
  if (value_->is_uint()) return value_->uint_value();
  absl::StatusOr<int64_t> i = Int();
  if (!i.ok()) return i.status();
  if (*i < 0) return Error(absl::StrCat("expected a non-negative integer, got ", *i));
  return static_cast<uint64_t>(*i);
}

absl::StatusOr<double> JsonRef::Double() const {
  if (value_->is_string()) {
    const std::string& s = value_->string_value();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  if (!value_->is_number()) return TypeError("number");
  return value_->double_value();
}

absl::StatusOr<bool> JsonRef::Bool() const {
  if (!value_->is_bool()) return TypeError("bool");
  return value_->bool_value();
}

}  // namespace rk
