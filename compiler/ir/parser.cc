#include "compiler/ir/parser.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/lexer.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/names.h"
#include "compiler/ir/verifier.h"

namespace rk::compiler {
namespace {

// Limits that keep hostile input from exhausting memory.
constexpr int kMaxRank = 32;
constexpr int64_t kMaxTypeElements = int64_t{1} << 40;
constexpr int64_t kMaxFileBytes = int64_t{1} << 30;

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options)
      : text_(text), options_(options), lexer_(text) {
    token_ = lexer_.Next();
  }

  absl::StatusOr<Graph> Run() {
    Token keyword = token_;
    if (token_.kind != TokenKind::kIdent || token_.text != "graph") {
      return Expected("'graph'");
    }
    Take();
    if (token_.kind != TokenKind::kGraphName) return Expected("a graph name '@name'");
    builder_ = GraphBuilder(Take().value);
    if (absl::Status s = ParseSignature(); !s.ok()) return s;
    if (absl::Status s = Expect(TokenKind::kLBrace, "'{'"); !s.ok()) return s;
    while (!(token_.kind == TokenKind::kIdent && token_.text == "return")) {
      if (token_.kind == TokenKind::kRBrace) {
        return ErrorAt(token_, "missing 'return' before '}'");
      }
      if (token_.kind != TokenKind::kValueName) {
        return Expected("a node '%name = op(...)' or 'return'");
      }
      if (absl::Status s = ParseNode(); !s.ok()) return s;
    }
    Token ret = Take();
    if (token_.kind == TokenKind::kRBrace) {
      return ErrorAt(ret, "'return' needs at least one value");
    }
    while (true) {
      absl::StatusOr<NodeId> id = ParseUse();
      if (!id.ok()) return id.status();
      if (absl::Status s = builder_.Output(*id); !s.ok()) return ErrorAt(ret, s.message());
      if (token_.kind != TokenKind::kComma) break;
      Take();
    }
    if (absl::Status s = Expect(TokenKind::kRBrace, "'}'"); !s.ok()) return s;
    if (token_.kind != TokenKind::kEof) {
      return ErrorAt(token_, absl::StrCat("unexpected ", DescribeToken(token_), " after the graph"));
    }
    absl::StatusOr<Graph> graph = builder_.Build();
    if (!graph.ok()) return ErrorAt(keyword, graph.status().message());
    if (absl::Status s = Verify(*graph); !s.ok()) return ErrorAt(keyword, s.message());
    return graph;
  }

 private:
  Token Take() {
    Token current = std::move(token_);
    token_ = lexer_.Next();
    return current;
  }

  absl::Status ErrorAt(const Token& token, absl::string_view message) const {
    return ErrorAtPos(token.pos, message);
  }

  absl::Status ErrorAtPos(const SourcePos& pos, absl::string_view message) const {
    int64_t line_start = pos.offset - (pos.col - 1);
    int64_t line_end = line_start;
    while (line_end < static_cast<int64_t>(text_.size()) && text_[line_end] != '\n') ++line_end;
    // Show at most 160 columns around the error.
    int64_t from = std::max(line_start, pos.offset - 80);
    int64_t to = std::min(line_end, from + 160);
    std::string line, caret;
    for (int64_t i = from; i < to; ++i) {
      unsigned char c = static_cast<unsigned char>(text_[i]);
      char shown = c == '\t' ? '\t' : (c < 0x20 || c >= 0x7f ? '?' : static_cast<char>(c));
      line += shown;
      if (i < pos.offset) caret += shown == '\t' ? '\t' : ' ';
    }
    caret += '^';
    return absl::InvalidArgumentError(absl::StrCat(options_.filename, ":", pos.line, ":", pos.col,
                                                   ": ", message, "\n", line, "\n", caret));
  }

  // An error at the current token: a lexer error, or "expected X, got Y".
  absl::Status Expected(absl::string_view what) const {
    if (token_.kind == TokenKind::kError) return ErrorAt(token_, token_.value);
    return ErrorAt(token_, absl::StrCat("expected ", what, ", got ", DescribeToken(token_)));
  }

  absl::Status Expect(TokenKind kind, absl::string_view what) {
    if (token_.kind != kind) return Expected(what);
    Take();
    return absl::OkStatus();
  }

  // Resolves a definition's name: "" for a digit-only name equal to the id.
  absl::StatusOr<std::string> DefinitionName(const Token& name_token) {
    const std::string& name = name_token.value;
    int next_id = builder_.num_nodes();
    if (IsDigits(name)) {
      if (name != std::to_string(next_id)) {
        return ErrorAt(name_token,
                       absl::StrCat("numeric name '%", name, "' must equal the node's id ",
                                    next_id, " (digit-only names stand for unnamed nodes)"));
      }
    }
    if (auto it = defined_.find(name); it != defined_.end()) {
      return ErrorAt(name_token, absl::StrCat("duplicate name '%", name, "' (first defined at ",
                                              it->second.pos.line, ":", it->second.pos.col, ")"));
    }
    defined_[name] = Definition{NodeId(next_id), name_token.pos};
    return IsDigits(name) ? std::string() : name;
  }

  absl::StatusOr<NodeId> ParseUse() {
    if (token_.kind != TokenKind::kValueName) return Expected("a value '%name'");
    Token use = Take();
    auto it = defined_.find(use.value);
    if (it == defined_.end()) {
      return ErrorAt(use, absl::StrCat("undefined value '%", use.value, "'"));
    }
    return it->second.id;
  }

  absl::Status ParseSignature() {
    if (absl::Status s = Expect(TokenKind::kLParen, "'('"); !s.ok()) return s;
    if (token_.kind == TokenKind::kRParen) {
      Take();
      return absl::OkStatus();
    }
    while (true) {
      if (token_.kind != TokenKind::kValueName) return Expected("an input '%name: type'");
      Token name_token = Take();
      absl::StatusOr<std::string> name = DefinitionName(name_token);
      if (!name.ok()) return name.status();
      if (absl::Status s = Expect(TokenKind::kColon, "':'"); !s.ok()) return s;
      absl::StatusOr<TensorType> type = ParseType();
      if (!type.ok()) return type.status();
      bool grad = false;
      if (token_.kind == TokenKind::kIdent && token_.text == kGradAttr) {
        if (!IsFloat(type->dtype)) {
          return ErrorAt(token_, absl::StrCat("'grad' on input '%", name_token.value, "' of type ",
                                              type->ToString(),
                                              ": only float inputs have gradients"));
        }
        Take();
        grad = true;
      }
      NodeId id = builder_.Input(*name, *type, grad);
      if (!id.valid()) return ErrorAt(name_token, builder_.Build().status().message());
      if (token_.kind == TokenKind::kRParen) break;
      if (absl::Status s = Expect(TokenKind::kComma, "',' or ')'"); !s.ok()) return s;
    }
    Take();
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> ParseIntToken(absl::string_view what) {
    if (token_.kind != TokenKind::kInt) return Expected(what);
    std::string_view text = token_.text;
    if (!text.empty() && text[0] == '+') text.remove_prefix(1);
    int64_t value = 0;
    auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size()) {
      return ErrorAt(token_, absl::StrCat("integer ", DescribeToken(token_), " is out of range"));
    }
    Take();
    return value;
  }

  absl::StatusOr<TensorType> ParseType() {
    if (token_.kind != TokenKind::kIdent) return Expected("a type like 'f32[8,128]'");
    Token dtype_token = Take();
    std::optional<DType> dtype = ParseDType(dtype_token.text);
    if (!dtype) {
      return ErrorAt(dtype_token, absl::StrCat("unknown dtype ", DescribeToken(dtype_token),
                                               " (f16, bf16, f32, f64, i32, i64, bool)"));
    }
    if (absl::Status s = Expect(TokenKind::kLBracket, "'[' after the dtype"); !s.ok()) return s;
    std::vector<int64_t> dims;
    int64_t elements = 1;
    while (token_.kind != TokenKind::kRBracket) {
      if (!dims.empty()) {
        if (absl::Status s = Expect(TokenKind::kComma, "',' or ']'"); !s.ok()) return s;
      }
      Token dim_token = token_;
      absl::StatusOr<int64_t> dim = ParseIntToken("a dimension");
      if (!dim.ok()) return dim.status();
      if (*dim < 0) return ErrorAt(dim_token, absl::StrCat("negative dimension ", *dim));
      if (dims.size() >= kMaxRank) {
        return ErrorAt(dim_token, absl::StrCat("rank exceeds the limit of ", kMaxRank));
      }
      if (*dim > kMaxTypeElements || (*dim > 0 && elements > kMaxTypeElements / *dim)) {
        return ErrorAt(dim_token,
                       absl::StrCat("type has more than 2^40 elements (the limit)"));
      }
      elements *= *dim;
      dims.push_back(*dim);
    }
    Take();
    return TensorType(*dtype, Shape(std::move(dims)));
  }

  absl::Status ParseNode() {
    Token name_token = Take();
    if (absl::Status s = Expect(TokenKind::kEquals, "'='"); !s.ok()) return s;
    if (token_.kind != TokenKind::kIdent) return Expected("an op name");
    Token op_token = Take();
    std::optional<Op> op = ParseOp(op_token.text);
    if (!op) return ErrorAt(op_token, absl::StrCat("unknown op ", DescribeToken(op_token)));
    if (*op == Op::kInput) {
      return ErrorAt(op_token, "inputs are declared in the graph signature, not with 'input'");
    }
    if (absl::Status s = Expect(TokenKind::kLParen, "'('"); !s.ok()) return s;
    std::vector<NodeId> operands;
    while (token_.kind != TokenKind::kRParen) {
      if (!operands.empty()) {
        if (absl::Status s = Expect(TokenKind::kComma, "',' or ')'"); !s.ok()) return s;
      }
      absl::StatusOr<NodeId> id = ParseUse();
      if (!id.ok()) return id.status();
      operands.push_back(*id);
    }
    Take();
    int arity = OpArity(*op);
    int count = static_cast<int>(operands.size());
    if ((arity >= 0 && count != arity) || (arity < 0 && count == 0)) {
      return ErrorAt(op_token, absl::StrCat(std::string(OpName(*op)), " takes ",
                                            arity < 0 ? "at least 1" : std::to_string(arity),
                                            arity == 1 ? " operand" : " operands", ", got ",
                                            count));
    }
    Attributes attrs;
    if (token_.kind == TokenKind::kLBrace) {
      absl::StatusOr<Attributes> parsed = ParseAttributes();
      if (!parsed.ok()) return parsed.status();
      attrs = *std::move(parsed);
    }
    if (absl::Status s = Expect(TokenKind::kColon, "':' and the result type"); !s.ok()) return s;
    Token type_token = token_;
    absl::StatusOr<TensorType> type = ParseType();
    if (!type.ok()) return type.status();
    absl::StatusOr<std::string> name = DefinitionName(name_token);
    if (!name.ok()) return name.status();
    absl::StatusOr<NodeId> id = builder_.AddWithType(*op, operands, std::move(attrs), *type, *name);
    if (!id.ok()) {
      bool about_type = absl::StartsWith(id.status().message(), "declared type");
      return ErrorAt(about_type ? type_token : op_token, id.status().message());
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Attributes> ParseAttributes() {
    Take();  // '{'
    Attributes attrs;
    while (token_.kind != TokenKind::kRBrace) {
      if (!attrs.empty()) {
        if (absl::Status s = Expect(TokenKind::kComma, "',' or '}'"); !s.ok()) return s;
      }
      if (token_.kind != TokenKind::kIdent) return Expected("an attribute name");
      Token name = Take();
      if (attrs.Has(std::string(name.text))) {
        return ErrorAt(name, absl::StrCat("duplicate attribute '", std::string(name.text), "'"));
      }
      if (absl::Status s = Expect(TokenKind::kEquals, "'='"); !s.ok()) return s;
      absl::StatusOr<AttrValue> value = ParseAttrValue();
      if (!value.ok()) return value.status();
      attrs.Set(std::string(name.text), *std::move(value));
    }
    Take();
    return attrs;
  }

  absl::StatusOr<AttrValue> ParseAttrValue() {
    switch (token_.kind) {
      case TokenKind::kInt: {
        absl::StatusOr<int64_t> v = ParseIntToken("an integer");
        if (!v.ok()) return v.status();
        return AttrValue(*v);
      }
      case TokenKind::kFloat: {
        absl::StatusOr<double> v = ParseDouble(token_.text);
        if (!v.ok()) return ErrorAt(token_, v.status().message());
        Take();
        return AttrValue(*v);
      }
      case TokenKind::kString: return AttrValue(Take().value);
      case TokenKind::kLBracket: {
        Take();
        std::vector<int64_t> values;
        while (token_.kind != TokenKind::kRBracket) {
          if (!values.empty()) {
            if (absl::Status s = Expect(TokenKind::kComma, "',' or ']'"); !s.ok()) return s;
          }
          absl::StatusOr<int64_t> v = ParseIntToken("an integer in the list");
          if (!v.ok()) return v.status();
          values.push_back(*v);
        }
        Take();
        return AttrValue(std::move(values));
      }
      case TokenKind::kIdent: {
        if (token_.text == "true" || token_.text == "false") {
          return AttrValue(Take().text == "true");
        }
        if (token_.text == "dense") return ParseTensorLiteral();
        if (std::optional<DType> dtype = ParseDType(token_.text)) {
          Take();
          return AttrValue(*dtype);
        }
        return ErrorAt(token_, absl::StrCat("unknown attribute value ", DescribeToken(token_)));
      }
      default: return Expected("an attribute value");
    }
  }

  absl::StatusOr<AttrValue> ParseTensorLiteral() {
    Take();  // dense
    if (absl::Status s = Expect(TokenKind::kLAngle, "'<'"); !s.ok()) return s;
    Token type_token = token_;
    absl::StatusOr<TensorType> type = ParseType();
    if (!type.ok()) return type.status();
    if (absl::Status s = Expect(TokenKind::kRAngle, "'>'"); !s.ok()) return s;
    if (token_.kind == TokenKind::kBlobRef) return ResolveBlob(Take(), *type);
    if (token_.kind != TokenKind::kLBracket) return Expected("'[' or 'sha256:<hex>'");
    Token open = Take();
    if (type->num_elements() > options_.max_literal_elements) {
      return ErrorAt(type_token, absl::StrCat("inline literal of ", type->num_elements(),
                                              " elements exceeds the limit of ",
                                              options_.max_literal_elements));
    }
    std::vector<Token> elements;
    while (token_.kind != TokenKind::kRBracket) {
      if (!elements.empty()) {
        if (absl::Status s = Expect(TokenKind::kComma, "',' or ']'"); !s.ok()) return s;
      }
      if (token_.kind != TokenKind::kInt && token_.kind != TokenKind::kFloat &&
          token_.kind != TokenKind::kIdent) {
        return Expected("a literal element");
      }
      if (static_cast<int64_t>(elements.size()) >= type->num_elements()) {
        return ErrorAt(open, absl::StrCat("literal of type ", type->ToString(), " needs ",
                                          type->num_elements(), " elements, got more"));
      }
      elements.push_back(Take());
    }
    if (static_cast<int64_t>(elements.size()) != type->num_elements()) {
      return ErrorAt(open, absl::StrCat("literal of type ", type->ToString(), " needs ",
                                        type->num_elements(), " elements, got ",
                                        elements.size()));
    }
    Take();
    HostTensor tensor(*type);
    for (size_t i = 0; i < elements.size(); ++i) {
      if (absl::Status s = ParseElement(elements[i].text, tensor, static_cast<int64_t>(i));
          !s.ok()) {
        return ErrorAt(elements[i], s.message());
      }
    }
    return AttrValue(std::move(tensor));
  }

  absl::StatusOr<AttrValue> ResolveBlob(const Token& ref, const TensorType& type) {
    if (options_.resolver == nullptr) {
      return ErrorAt(ref, "a sha256 constant reference needs a blob resolver (none given)");
    }
    absl::StatusOr<HostTensor> tensor = options_.resolver->Get(ref.value, type);
    if (!tensor.ok()) {
      return ErrorAt(ref, absl::StrCat("cannot resolve sha256:", ref.value, ": ",
                                       tensor.status().message()));
    }
    if (tensor->type() != type || !tensor->valid()) {
      return ErrorAt(ref, absl::StrCat("blob sha256:", ref.value, " resolved to ",
                                       tensor->type().ToString(), ", expected ", type.ToString()));
    }
    return AttrValue(*std::move(tensor));
  }

  struct Definition {
    NodeId id;
    SourcePos pos;
  };

  std::string_view text_;
  const ParseOptions& options_;
  Lexer lexer_;
  Token token_;
  GraphBuilder builder_;
  std::map<std::string, Definition, std::less<>> defined_;
};

}  // namespace

absl::StatusOr<Graph> ParseInline(std::string_view text) {
  ParseOptions options;
  options.max_literal_elements = std::numeric_limits<int64_t>::max();
  return Parse(text, options);
}

absl::StatusOr<Graph> Parse(std::string_view text, const ParseOptions& options) {
  return Parser(text, options).Run();
}

absl::StatusOr<Graph> ParseFile(const std::string& path, BlobResolver* resolver) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "'"));
  if (size > kMaxFileBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is larger than the 1 GiB limit of graph files"));
  }
  in.seekg(0, std::ios::beg);
  std::string text(static_cast<size_t>(size), '\0');
  if (!in.read(text.data(), size)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "'"));
  }
  ParseOptions options;
  options.filename = path;
  options.resolver = resolver;
  return Parse(text, options);
}

}  // namespace rk::compiler
