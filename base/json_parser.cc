// The strict JSON parser behind ParseJson (json.h).
#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/json.h"

namespace rk {
namespace {

// Objects with more members than this check duplicates with a hash set; the
// linear scan is faster below it.
constexpr size_t kLinearKeyCheckLimit = 16;

absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

class JsonParser {
 public:
  JsonParser(std::string_view text, const JsonParseOptions& options)
      : text_(text), options_(options) {}

  absl::StatusOr<Json> Parse() {
    if (text_.size() > options_.max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          options_.filename, ": ", text_.size(), " bytes exceeds the limit of ",
          options_.max_bytes));
    }
    Json value;
    SkipSpace();
    if (absl::Status s = ParseValue(value, 0); !s.ok()) return s;
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the JSON value");
    return value;
  }

 private:
  absl::Status Error(std::string_view what) const { return ErrorAt(pos_, what); }

  absl::Status ErrorAt(size_t at, std::string_view what) const {
    int line = 1, col = 1;
    for (size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat(options_.filename, ":", line, ":", col, ": ", Absl(what)));
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  void SkipSpace() {
    while (!AtEnd()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  absl::Status Expect(char c) {
    if (Peek() != c) {
      return AtEnd() ? Error(absl::StrCat("expected '", std::string(1, c), "', got end of input"))
                     : Error(absl::StrCat("expected '", std::string(1, c), "', got '",
                                          std::string(1, Peek()), "'"));
    }
    ++pos_;
    return absl::OkStatus();
  }

  absl::Status ParseLiteral(std::string_view word, Json value, Json& out) {
    if (text_.substr(pos_, word.size()) != word) return Error("invalid literal");
    pos_ += word.size();
    out = std::move(value);
    return absl::OkStatus();
  }

  absl::Status ParseValue(Json& out, int depth) {
    if (AtEnd()) return Error("expected a value, got end of input");
    switch (Peek()) {
      case '{': return ParseObject(out, depth + 1);
      case '[': return ParseArray(out, depth + 1);
      case '"': {
        std::string s;
        if (absl::Status st = ParseString(s); !st.ok()) return st;
        out = Json(std::move(s));
        return absl::OkStatus();
      }
      case 't': return ParseLiteral("true", Json(true), out);
      case 'f': return ParseLiteral("false", Json(false), out);
      case 'n': return ParseLiteral("null", Json(), out);
      default:
        if (Peek() == '-' || (Peek() >= '0' && Peek() <= '9')) return ParseNumber(out);
        return Error(absl::StrCat("unexpected character '", std::string(1, Peek()), "'"));
    }
  }

  absl::Status ParseArray(Json& out, int depth) {
    if (depth > options_.max_depth) {
      return Error(absl::StrCat("nesting deeper than ", options_.max_depth));
    }
    ++pos_;
    out = Json::MakeArray();
    SkipSpace();
    if (Peek() == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      SkipSpace();
      Json element;
      if (absl::Status s = ParseValue(element, depth); !s.ok()) return s;
      out.array_.push_back(std::move(element));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      return Expect(']');
    }
  }

  absl::Status ParseObject(Json& out, int depth) {
    if (depth > options_.max_depth) {
      return Error(absl::StrCat("nesting deeper than ", options_.max_depth));
    }
    ++pos_;
    out = Json::MakeObject();
    absl::flat_hash_set<std::string> keys;
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      SkipSpace();
      size_t key_pos = pos_;
      if (Peek() != '"') return Error("expected a string key");
      std::string key;
      if (absl::Status s = ParseString(key); !s.ok()) return s;
      bool duplicate = false;
      if (out.object_.size() < kLinearKeyCheckLimit) {
        for (const auto& member : out.object_) duplicate |= member.first == key;
      } else {
        if (keys.empty()) {
          for (const auto& member : out.object_) keys.insert(member.first);
        }
        duplicate = !keys.insert(key).second;
      }
      if (duplicate) return ErrorAt(key_pos, absl::StrCat("duplicate key \"", key, "\""));
      SkipSpace();
      if (absl::Status s = Expect(':'); !s.ok()) return s;
      SkipSpace();
      Json member;
      if (absl::Status s = ParseValue(member, depth); !s.ok()) return s;
      out.object_.emplace_back(std::move(key), std::move(member));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      return Expect('}');
    }
  }

  absl::Status ParseHex4(uint32_t& out) {
    if (pos_ + 4 > text_.size()) return Error("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_ + i];
      uint32_t d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return ErrorAt(pos_ + i, "invalid hex digit in \\u escape");
      }
      out = out * 16 + d;
    }
    pos_ += 4;
    return absl::OkStatus();
  }

  static void AppendUtf8(uint32_t cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  absl::Status ParseEscape(std::string& out) {
    size_t at = pos_;
    ++pos_;  // backslash
    if (AtEnd()) return Error("unterminated string");
    char c = text_[pos_++];
    switch (c) {
      case '"': out += '"'; return absl::OkStatus();
      case '\\': out += '\\'; return absl::OkStatus();
      case '/': out += '/'; return absl::OkStatus();
      case 'b': out += '\b'; return absl::OkStatus();
      case 'f': out += '\f'; return absl::OkStatus();
      case 'n': out += '\n'; return absl::OkStatus();
      case 'r': out += '\r'; return absl::OkStatus();
      case 't': out += '\t'; return absl::OkStatus();
      case 'u': break;
      default: return ErrorAt(at, "invalid escape");
    }
    uint32_t cp = 0;
    if (absl::Status s = ParseHex4(cp); !s.ok()) return s;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return ErrorAt(at, "unpaired low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (text_.substr(pos_, 2) != "\\u") return ErrorAt(at, "unpaired high surrogate");
      pos_ += 2;
      uint32_t low = 0;
      if (absl::Status s = ParseHex4(low); !s.ok()) return s;
      if (low < 0xDC00 || low > 0xDFFF) return ErrorAt(at, "unpaired high surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(cp, out);
    return absl::OkStatus();
  }

  // Length of the valid UTF-8 sequence at pos_ (lead byte >= 0x80), 0 if invalid.
  size_t Utf8Length() const {
    auto byte = [&](size_t i) -> uint8_t {
      return pos_ + i < text_.size() ? static_cast<uint8_t>(text_[pos_ + i]) : 0;
    };
    auto cont = [&](size_t i) { return (byte(i) & 0xC0) == 0x80; };
    uint8_t b0 = byte(0);
    if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
    if (b0 >= 0xE0 && b0 <= 0xEF) {
      if (!cont(1) || !cont(2)) return 0;
      if (b0 == 0xE0 && byte(1) < 0xA0) return 0;   // overlong
      if (b0 == 0xED && byte(1) >= 0xA0) return 0;  // surrogate
      return 3;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4) {
      if (!cont(1) || !cont(2) || !cont(3)) return 0;
      if (b0 == 0xF0 && byte(1) < 0x90) return 0;
      if (b0 == 0xF4 && byte(1) >= 0x90) return 0;
      return 4;
    }
    return 0;
  }

  absl::Status ParseString(std::string& out) {
    size_t start = pos_;
    ++pos_;  // opening quote
    while (true) {
      if (AtEnd()) return ErrorAt(start, "unterminated string");
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c == '\\') {
        if (absl::Status s = ParseEscape(out); !s.ok()) return s;
        continue;
      }
      if (c < 0x20) return Error("control character in string (escape it)");
      if (c < 0x80) {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      size_t n = Utf8Length();
      if (n == 0) return Error("invalid UTF-8 in string");
      out.append(text_.substr(pos_, n));
      pos_ += n;
    }
  }

  absl::Status ParseNumber(Json& out) {
    size_t start = pos_;
    auto digits = [&]() {
      size_t n = 0;
      while (!AtEnd() && Peek() >= '0' && Peek() <= '9') {
        ++pos_;
        ++n;
      }
      return n;
    };
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') {
      ++pos_;
      if (Peek() >= '0' && Peek() <= '9') return Error("leading zeros are not allowed");
    } else if (digits() == 0) {
      return Error("expected digits");
    }
    bool integral = true;
    if (Peek() == '.') {
      integral = false;
      ++pos_;
      if (digits() == 0) return Error("expected digits after '.'");
    }
    if (Peek() == 'e' || Peek() == 'E') {
      integral = false;
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (digits() == 0) return Error("expected digits in exponent");
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    out = Json();
    out.type_ = Json::Type::kNumber;
    if (integral) {
      int64_t i;
      auto [ptr, ec] = std::from_chars(first, last, i);
      if (ec == std::errc() && ptr == last) {
        out = Json(static_cast<long long>(i));
        return absl::OkStatus();
      }
      uint64_t u;
      auto [uptr, uec] = std::from_chars(first, last, u);
      if (uec == std::errc() && uptr == last) {
        out = Json(static_cast<unsigned long long>(u));
        return absl::OkStatus();
      }
    }
    double d;
    auto [ptr, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      return ErrorAt(start, "number out of range of a double");
    }
    if (ec != std::errc() || ptr != last) return ErrorAt(start, "invalid number");
    out.number_ = d;
    return absl::OkStatus();
  }

  std::string_view text_;
  const JsonParseOptions& options_;
  size_t pos_ = 0;
};

absl::StatusOr<Json> ParseJson(std::string_view text, const JsonParseOptions& options) {
  return JsonParser(text, options).Parse();
}

}  // namespace rk
