// Tokens of the graph text format (grammar in docs/FORMAT.md), produced on
// demand by Lexer for the parser. Positions are 1-based line and byte column.
// The lexer never fails hard: bad input gives a kError token carrying the
// message, so the parser reports it with its position.
//
// Tested through compiler/ir/parser_test.cc.
#ifndef REPROKIT_COMPILER_IR_LEXER_H_
#define REPROKIT_COMPILER_IR_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace rk::compiler {

enum class TokenKind {
  kEof,
  kError,      // `value` holds the message
  kValueName,  // %x, %0: `value` is the name without '%'
  kGraphName,  // @main or @"quoted": `value` is the name
  kIdent,      // graph, reduce_sum, f32, true, dense
  kInt,        // 12, -3
  kFloat,      // 1.5, -2e-3, inf, -nan
  kString,     // "..." : `value` is unescaped
  kBlobRef,    // sha256:<hex> : `value` is the hex digest
  kLParen, kRParen, kLBrace, kRBrace, kLBracket, kRBracket, kLAngle, kRAngle,
  kComma, kColon, kEquals,
};

struct SourcePos {
  int line = 1;
  int col = 1;
  int64_t offset = 0;
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string_view text;  // the raw characters
  std::string value;
  SourcePos pos;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}
  Token Next();

 private:
  void SkipSpaceAndComments();
  char PeekChar(int64_t ahead = 0) const;
  void Advance();
  Token Make(TokenKind kind, const SourcePos& start);
  Token Error(const SourcePos& start, std::string message);
  Token LexNumber(const SourcePos& start);
  Token LexString(const SourcePos& start, TokenKind kind);
  Token LexWord(const SourcePos& start);

  std::string_view text_;
  SourcePos pos_;
};

// Describes a token for messages: "'foo'", "end of input".
std::string DescribeToken(const Token& token);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_LEXER_H_
