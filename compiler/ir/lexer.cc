#include "compiler/ir/lexer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/names.h"

namespace rk::compiler {
namespace {

bool IsIdentStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool IsIdentChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }
bool IsDigit(char c) { return absl::ascii_isdigit(c); }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string DescribeToken(const Token& token) {
  if (token.kind == TokenKind::kEof) return "end of input";
  std::string_view text = token.text.substr(0, 40);
  return absl::StrCat("'", absl::CHexEscape(std::string(text)), token.text.size() > 40 ? "..." : "", "'");
}

char Lexer::PeekChar(int64_t ahead) const {
  int64_t at = pos_.offset + ahead;
  return at < static_cast<int64_t>(text_.size()) ? text_[at] : '\0';
}

void Lexer::Advance() {
  if (pos_.offset >= static_cast<int64_t>(text_.size())) return;
  if (text_[pos_.offset] == '\n') {
    ++pos_.line;
    pos_.col = 1;
  } else {
    ++pos_.col;
  }
  ++pos_.offset;
}

void Lexer::SkipSpaceAndComments() {
  while (pos_.offset < static_cast<int64_t>(text_.size())) {
    char c = PeekChar();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      Advance();
    } else if (c == '/' && PeekChar(1) == '/') {
      while (pos_.offset < static_cast<int64_t>(text_.size()) && PeekChar() != '\n') Advance();
    } else {
      return;
    }
  }
}

Token Lexer::Make(TokenKind kind, const SourcePos& start) {
  Token token;
  token.kind = kind;
  token.pos = start;
  token.text = text_.substr(start.offset, pos_.offset - start.offset);
  return token;
}

Token Lexer::Error(const SourcePos& start, std::string message) {
  Token token = Make(TokenKind::kError, start);
  token.value = std::move(message);
  return token;
}

Token Lexer::Next() {
  SkipSpaceAndComments();
  SourcePos start = pos_;
  if (pos_.offset >= static_cast<int64_t>(text_.size())) return Make(TokenKind::kEof, start);
  char c = PeekChar();
  auto punct = [&](TokenKind kind) {
    Advance();
    return Make(kind, start);
  };
  switch (c) {
    case '(': return punct(TokenKind::kLParen);
    case ')': return punct(TokenKind::kRParen);
    case '{': return punct(TokenKind::kLBrace);
    case '}': return punct(TokenKind::kRBrace);
    case '[': return punct(TokenKind::kLBracket);
    case ']': return punct(TokenKind::kRBracket);
    case '<': return punct(TokenKind::kLAngle);
    case '>': return punct(TokenKind::kRAngle);
    case ',': return punct(TokenKind::kComma);
    case ':': return punct(TokenKind::kColon);
    case '=': return punct(TokenKind::kEquals);
    case '"': return LexString(start, TokenKind::kString);
    default: break;
  }
  if (c == '%' || c == '@') {
    Advance();
    if (c == '@' && PeekChar() == '"') return LexString(start, TokenKind::kGraphName);
    while (IsNameChar(PeekChar())) Advance();
    Token token = Make(c == '%' ? TokenKind::kValueName : TokenKind::kGraphName, start);
    token.value = std::string(token.text.substr(1));
    if (token.value.empty()) {
      return Error(start, absl::StrCat("expected a name of [A-Za-z0-9_.] after '", std::string(1, c), "'"));
    }
    return token;
  }
  if (IsDigit(c) || c == '-' || c == '+' || c == '.') return LexNumber(start);
  if (IsIdentStart(c)) return LexWord(start);
  Advance();
  return Error(start, absl::StrCat("unexpected character '",
                                   absl::CHexEscape(std::string(1, c)), "'"));
}

Token Lexer::LexNumber(const SourcePos& start) {
  bool is_float = false;
  if (PeekChar() == '-' || PeekChar() == '+') Advance();
  if (IsIdentStart(PeekChar())) {
    while (IsIdentChar(PeekChar())) Advance();
    Token token = Make(TokenKind::kFloat, start);
    std::string_view word = token.text.substr(1);
    if (word == "inf" || word == "nan") return token;
    return Error(start, absl::StrCat("malformed number ", DescribeToken(token)));
  }
  if (!IsDigit(PeekChar()) && !(PeekChar() == '.' && IsDigit(PeekChar(1)))) {
    Advance();
    return Error(start, absl::StrCat("unexpected character '", std::string(1, text_[start.offset]),
                                     "'"));
  }
  while (IsDigit(PeekChar())) Advance();
  if (PeekChar() == '.') {
    is_float = true;
    Advance();
    while (IsDigit(PeekChar())) Advance();
  }
  if (PeekChar() == 'e' || PeekChar() == 'E') {
    is_float = true;
    Advance();
    if (PeekChar() == '-' || PeekChar() == '+') Advance();
    if (!IsDigit(PeekChar())) {
      return Error(start, absl::StrCat("malformed number ",
                                       DescribeToken(Make(TokenKind::kFloat, start))));
    }
    while (IsDigit(PeekChar())) Advance();
  }
  if (IsIdentChar(PeekChar()) || PeekChar() == '.') {
    while (IsIdentChar(PeekChar()) || PeekChar() == '.') Advance();
    return Error(start, absl::StrCat("malformed number ",
                                     DescribeToken(Make(TokenKind::kFloat, start))));
  }
  return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, start);
}

Token Lexer::LexWord(const SourcePos& start) {
  while (IsIdentChar(PeekChar())) Advance();
  Token token = Make(TokenKind::kIdent, start);
  if (token.text == "inf" || token.text == "nan") token.kind = TokenKind::kFloat;
  if (token.text == "sha256" && PeekChar() == ':') {
    Advance();
    while (absl::ascii_isxdigit(PeekChar())) Advance();
    token = Make(TokenKind::kBlobRef, start);
    token.value = std::string(token.text.substr(7));
    if (token.value.size() != 64 || IsIdentChar(PeekChar())) {
      return Error(start, "a sha256 reference needs exactly 64 hex digits");
    }
    token.value = absl::AsciiStrToLower(token.value);
  }
  return token;
}

Token Lexer::LexString(const SourcePos& start, TokenKind kind) {
  Advance();  // the opening quote
  std::string value;
  while (true) {
    if (pos_.offset >= static_cast<int64_t>(text_.size()) || PeekChar() == '\n') {
      return Error(start, "unterminated string");
    }
    char c = PeekChar();
    if (c == '"') {
      Advance();
      break;
    }
    if (c != '\\') {
      value += c;
      Advance();
      continue;
    }
    SourcePos escape = pos_;
    Advance();
    char e = PeekChar();
    switch (e) {
      case '\\': value += '\\'; break;
      case '"': value += '"'; break;
      case 'n': value += '\n'; break;
      case 't': value += '\t'; break;
      case 'r': value += '\r'; break;
      case 'x': {
        int hi = HexValue(PeekChar(1)), lo = HexValue(PeekChar(2));
        if (hi < 0 || lo < 0) return Error(escape, "\\x needs two hex digits");
        value += static_cast<char>(hi * 16 + lo);
        Advance();
        Advance();
        break;
      }
      default:
        return Error(escape, absl::StrCat("unknown escape '\\",
                                          absl::CHexEscape(std::string(1, e)), "'"));
    }
    Advance();
  }
  Token token = Make(kind, start);
  token.value = std::move(value);
  return token;
}

}  // namespace rk::compiler
