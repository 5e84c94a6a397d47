// A small JSON value, strict parser and printer, for machine-readable output
// (`--json`) and for the files the harness writes (bundles' repro.json).
//
// - Values: null, bool, number, string, array, object. Objects keep their keys
//   in insertion order (so printed output is deterministic and diffable) and
//   never hold a key twice.
// - Numbers are doubles; a number written without fraction or exponent that
//   fits in int64 or uint64 (or built from an integer) also keeps its exact
//   integer value, so 64-bit seeds and byte counts survive. Doubles print in the shortest form
//   that reads back to the same bits, with ".0" added to integral doubles so a
//   double stays a double through a round trip. JSON has no NaN or infinities:
//   they print as the strings "NaN", "Infinity", "-Infinity", which the typed
//   getter for doubles accepts back.
// - Parsing is strict RFC 8259 (no comments, no trailing commas, no duplicate
//   keys, valid UTF-8, nothing after the value) with depth and size limits;
//   errors are InvalidArgument "<name>:<line>:<col>: <what>".
// - Typed getters (JsonRef) return StatusOr and name the key path in errors,
//   e.g. "repro.json: inputs[2].shape: expected array, got string".
//
// Tested by base/json_test.cc.
#ifndef REPROKIT_BASE_JSON_H_
#define REPROKIT_BASE_JSON_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace rk {

class Json {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool b) : type_(Type::kBool), bool_(b) {}
  Json(int v) : Json(static_cast<long long>(v)) {}
  Json(long v) : Json(static_cast<long long>(v)) {}
  Json(long long v)
      : type_(Type::kNumber), has_int_(true), has_uint_(v >= 0), number_(double(v)), int_(v),
        uint_(static_cast<uint64_t>(v)) {}
  Json(unsigned v) : Json(static_cast<long long>(v)) {}
  Json(unsigned long v);
  Json(unsigned long long v);
  Json(double v) : type_(Type::kNumber), number_(v) {}
  Json(const char* s) : type_(Type::kString), string_(s) {}
  Json(std::string s) : type_(Type::kString), string_(std::move(s)) {}
  Json(std::string_view s) : type_(Type::kString), string_(s) {}

  static Json MakeArray(Array elements = {});
  static Json MakeObject();

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }
  // A number that holds an exact int64 / uint64.
  bool is_int() const { return type_ == Type::kNumber && has_int_; }
  bool is_uint() const { return type_ == Type::kNumber && has_uint_; }

  // Unchecked accessors: the caller knows the type (check with is_*()).
  bool bool_value() const { return bool_; }
  double double_value() const { return number_; }
  int64_t int_value() const { return int_; }
  uint64_t uint_value() const { return uint_; }
  const std::string& string_value() const { return string_; }
  const Array& array() const { return array_; }
  Array& mutable_array() { return array_; }
  const Object& object() const { return object_; }

  // Arrays (a null becomes an empty array first).
  void push_back(Json value);
  // Elements of an array, members of an object, 0 otherwise.
  size_t size() const;

  // Objects (a null becomes an empty object first). operator[] inserts a null
  // member at the end when the key is new; Set replaces in place or appends.
  Json& operator[](std::string_view key);
  void Set(std::string_view key, Json value);
  const Json* Find(std::string_view key) const;
  bool Contains(std::string_view key) const { return Find(key) != nullptr; }
  bool Erase(std::string_view key);

  // Shortcuts for JsonRef(*this).Field(key).<Type>().
  absl::StatusOr<std::string> GetString(std::string_view key) const;
  absl::StatusOr<int64_t> GetInt(std::string_view key) const;
  absl::StatusOr<double> GetDouble(std::string_view key) const;
  absl::StatusOr<bool> GetBool(std::string_view key) const;

  // Compact: no whitespace. Pretty: 2-space indent, one member per line,
  // arrays of scalars on one line when short; ends without a newline.
  std::string Dump() const;
  std::string DumpPretty() const;

  // Same type and value; numbers compare by double value (and int64 when both
  // hold one), objects by their members in order.
  bool operator==(const Json& other) const;
  bool operator!=(const Json& other) const { return !(*this == other); }

  // The type's name for messages: "null", "bool", "number", ...
  static std::string_view TypeName(Type type);

 private:
  friend class JsonParser;
  Type type_ = Type::kNull;
  bool bool_ = false;
  bool has_int_ = false;
  bool has_uint_ = false;
  double number_ = 0;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  std::string string_;
  Array array_;
  Object object_;
};

struct JsonParseOptions {
  std::string filename = "<json>";    // used in error messages
  int max_depth = 128;                // nesting of arrays and objects
  size_t max_bytes = size_t{256} << 20;  // input size
};

absl::StatusOr<Json> ParseJson(std::string_view text, const JsonParseOptions& options = {});

// A read-only view of a value inside a document that remembers how it was
// reached, so every error names the path: "<doc>: a.b[3].c: <what>".
class JsonRef {
 public:
  // `document` prefixes messages (e.g. "repro.json"); may be empty.
  explicit JsonRef(const Json& value, std::string document = "", std::string path = "");

  const Json& value() const { return *value_; }
  // "a.b[3]"; "" for the root.
  const std::string& path() const { return path_; }

  // The member `key` of an object; NotFound-style InvalidArgument when missing.
  absl::StatusOr<JsonRef> Field(std::string_view key) const;
  // The member if present (and not null), nullopt otherwise; an error only when
  // this is not an object.
  absl::StatusOr<std::optional<JsonRef>> OptionalField(std::string_view key) const;
  absl::StatusOr<JsonRef> Index(size_t i) const;
  // The elements of an array, each with its path.
  absl::StatusOr<std::vector<JsonRef>> Elements() const;
  // Members of an object in order.
  absl::StatusOr<std::vector<std::pair<std::string, JsonRef>>> Members() const;

  absl::StatusOr<std::string> String() const;
  // Exact: an integer literal in range, or an integral double within +-2^53.
  absl::StatusOr<int64_t> Int() const;
  absl::StatusOr<uint64_t> Uint() const;
  // Numbers, and the strings "NaN", "Infinity", "-Infinity".
  absl::StatusOr<double> Double() const;
  absl::StatusOr<bool> Bool() const;

  // InvalidArgument "<doc>: <path>: <message>", for checks the caller makes.
  absl::Status Error(std::string_view message) const;

 private:
  absl::Status TypeError(std::string_view expected) const;
  std::string Child(std::string_view key) const;

  const Json* value_;
  std::string document_;
  std::string path_;
};

}  // namespace rk

#endif  // REPROKIT_BASE_JSON_H_
