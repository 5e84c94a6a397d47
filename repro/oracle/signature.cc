#include "repro/oracle/signature.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_join.h"

namespace rk::repro {
namespace {

constexpr VerdictKind kKinds[] = {VerdictKind::kPass,     VerdictKind::kCompileError,
                                  VerdictKind::kCrash,    VerdictKind::kTimeout,
                                  VerdictKind::kAccuracy, VerdictKind::kNondeterministic,
                                  VerdictKind::kCannotJudge, VerdictKind::kShapeMismatch};

// This Abseil build's string_view is not std::string_view.
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Length of the token at `s[i]` made of chars satisfying `pred`.
template <typename Pred>
size_t Span(std::string_view s, size_t i, Pred pred) {
  size_t j = i;
  while (j < s.size() && pred(s[j])) ++j;
  return j - i;
}

}  // namespace

std::string_view VerdictKindName(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::kPass: return "pass";
    case VerdictKind::kCompileError: return "compile_error";
    case VerdictKind::kCrash: return "crash";
    case VerdictKind::kTimeout: return "timeout";
    case VerdictKind::kAccuracy: return "accuracy";
    case VerdictKind::kNondeterministic: return "nondeterministic";
    case VerdictKind::kCannotJudge: return "cannot_judge";
    case VerdictKind::kShapeMismatch: return "shape_mismatch";
  }
  return "?";
}

absl::StatusOr<VerdictKind> ParseVerdictKind(std::string_view name) {
  for (VerdictKind k : kKinds) {
    if (VerdictKindName(k) == name) return k;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown verdict '", A(name),
      "' (expected pass, compile_error, crash, timeout, accuracy, nondeterministic, "
      "cannot_judge, shape_mismatch)"));
}

bool IsFailure(VerdictKind kind) {
  return kind != VerdictKind::kPass && kind != VerdictKind::kCannotJudge;
}

std::string Signature::ToString() const {
  if (detail.empty()) return std::string(VerdictKindName(kind));
  // Timeouts carry "@phase" and print as "timeout@phase".
  return absl::StrCat(A(VerdictKindName(kind)), detail[0] == '@' ? "" : ":", detail);
}

absl::StatusOr<Signature> Signature::Parse(std::string_view text) {
  size_t cut = text.find_first_of(":@");
  std::string_view head = text.substr(0, cut);
  absl::StatusOr<VerdictKind> kind = ParseVerdictKind(head);
  if (!kind.ok()) return kind.status();
  Signature s;
  s.kind = *kind;
  if (cut != std::string_view::npos) {
    s.detail = std::string(text[cut] == '@' ? text.substr(cut) : text.substr(cut + 1));
  }
  // A compile error recorded under older normalization rules (a bundle's
  // expected signature) reads as today's: normalizing is idempotent, so
  // normalizing the recorded text again gives what the raw message gives now.
  if (s.kind == VerdictKind::kCompileError) {
    const size_t colon = s.detail.find(':');
    if (colon != std::string::npos) {
      s.detail = absl::StrCat(s.detail.substr(0, colon + 1),
                              NormalizeMessage(std::string_view(s.detail).substr(colon + 1)));
    }
  }
  return s;
}

namespace {

// Words with digits that name a thing rather than an instance: dtypes
// ("f32", "int64", "tensor(float16)") and ops ("atan2", "expm1").
bool KeepsDigits(std::string_view word) {
  static constexpr std::string_view kWords[] = {"atan2", "expm1", "log2", "log10", "exp2",
                                                "log1p", "float8e4m3fn", "float8e5m2"};
  for (std::string_view w : kWords) {
    if (word == w) return true;
  }
  static constexpr std::string_view kPrefixes[] = {"f", "bf", "i", "u", "int", "uint", "float",
                                                   "bfloat", "complex", "b", "s", "si", "ui"};
  static constexpr std::string_view kBits[] = {"1", "4", "8", "16", "32", "64", "128"};
  for (std::string_view prefix : kPrefixes) {
    if (word.size() <= prefix.size() || word.substr(0, prefix.size()) != prefix) continue;
    for (std::string_view bits : kBits) {
      if (word.substr(prefix.size()) == bits) return true;
    }
  }
  return false;
}

// A word's digit runs that end it or come before '_' become N: generated
// names ("v9", "n_12", "Greater_3", "x0") vary between graphs, while a name
// with digits inside ("conv2d") is kept.
void AppendWord(std::string_view word, std::string* out) {
  if (KeepsDigits(word)) {
    out->append(word.data(), word.size());
    return;
  }
  for (size_t i = 0; i < word.size();) {
    if (!std::isdigit(static_cast<unsigned char>(word[i]))) {
      *out += word[i++];
      continue;
    }
    size_t j = i;
    while (j < word.size() && std::isdigit(static_cast<unsigned char>(word[j]))) ++j;
    if (j == word.size() || word[j] == '_') {
      *out += 'N';
      // "v9_2" (a second name made from "v9") is "v9" again.
      while (j + 1 < word.size() && word[j] == '_' &&
             std::isdigit(static_cast<unsigned char>(word[j + 1]))) {
        size_t k = j + 1;
        while (k < word.size() && std::isdigit(static_cast<unsigned char>(word[k]))) ++k;
        if (k != word.size() && word[k] != '_') break;
        j = k;
      }
    } else {
      out->append(word.data() + i, j - i);
    }
    i = j;
  }
}

// "N,N,N", "N, N" and "NxN" (sizes, index lists) become one N: how many
// there were varies with the graph as much as their values.
std::string CollapseNumberLists(const std::string& s) {
  // An N of its own: not part of a word, except the x of "NxN".
  auto lone = [&](size_t k) {
    if (k >= s.size() || s[k] != 'N') return false;
    const bool before = k == 0 || !IsWordChar(s[k - 1]) || (s[k - 1] == 'x' && k >= 2 && s[k - 2] == 'N');
    const bool after = k + 1 == s.size() || !IsWordChar(s[k + 1]) ||
                       (s[k + 1] == 'x' && k + 2 < s.size() && s[k + 2] == 'N');
    return before && after;
  };
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (!lone(i)) {
      out += s[i++];
      continue;
    }
    out += 'N';
    size_t j = i + 1;
    while (true) {
      size_t k = j;
      while (k < s.size() && s[k] == ' ') ++k;
      if (k >= s.size() || (s[k] != ',' && s[k] != 'x')) break;
      ++k;
      while (k < s.size() && s[k] == ' ') ++k;
      if (!lone(k)) break;
      j = k + 1;
    }
    i = j;
  }
  return out;
}

bool StartsPath(std::string_view m, size_t i) {
  if (m[i] != '/') return false;
  if (i == 0) return true;
  const char p = m[i - 1];
  return p == ' ' || p == '\'' || p == '"' || p == '(' || p == '[' || p == '=' || p == ',';
}

// What a Python-based compiler (PyTorch's Dynamo and Inductor) appends to an
// error names the graph, not the cause: the user code and FX node it was
// tracing, and a call's argument dump ("(*(FakeTensor(..., size=(2, 2)),
// [2, 2]), **{})"). A Python traceback keeps its exception line.
std::string DropContext(std::string_view m) {
  std::string text(m);
  if (size_t tb = text.find("Traceback (most recent call last):"); tb != std::string::npos) {
    std::string last;
    for (absl::string_view line : absl::StrSplit(text.substr(tb), '\n')) {
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) last = std::string(line);
    }
    text = absl::StrCat(text.substr(0, tb), last);
  }
  for (const char* marker : {"\nfrom user code:", "\nWhile executing ", "\nOriginal traceback:"}) {
    if (size_t at = text.find(marker); at != std::string::npos) text.resize(at);
  }
  for (size_t at = text.find("(*("); at != std::string::npos; at = text.find("(*(", at + 1)) {
    int depth = 0;
    size_t end = at;
    for (; end < text.size(); ++end) {
      if (text[end] == '(' || text[end] == '[' || text[end] == '{') ++depth;
      if ((text[end] == ')' || text[end] == ']' || text[end] == '}') && --depth == 0) break;
    }
    if (end == text.size()) break;
    text.replace(at, end - at + 1, "(ARGS)");
  }
  return text;
}

}  // namespace

std::string NormalizeMessage(std::string_view raw) {
  const std::string context_free = DropContext(raw);
  const std::string_view m = context_free;
  std::string out;
  for (size_t i = 0; i < m.size();) {
    char c = m[i];
    size_t n;
    if (c == '%' && i + 1 < m.size() && (IsWordChar(m[i + 1]) || m[i + 1] == '.')) {
      n = 1 + Span(m, i + 1, [](char x) { return IsWordChar(x) || x == '.'; });
      out += "%N";
    } else if (c == '0' && i + 1 < m.size() && (m[i + 1] == 'x' || m[i + 1] == 'X')) {
      n = 2 + Span(m, i + 2, [](char x) { return std::isxdigit(static_cast<unsigned char>(x)); });
      out += "H";
    } else if (StartsPath(m, i)) {
      n = Span(m, i, [](char x) {
        return x != ' ' && x != ':' && x != '\'' && x != '"' && x != ')' && x != ']' && x != ',';
      });
      out += "PATH";
    } else if (c == '\'' && i > 0 && std::isalpha(static_cast<unsigned char>(m[i - 1])) &&
               i + 1 < m.size() && std::isalpha(static_cast<unsigned char>(m[i + 1]))) {
      n = 1;  // an apostrophe ("can't"), not a quote
      out += c;
    } else if (c == '\'' || c == '"') {
      size_t close = m.find(c, i + 1);
      n = close == std::string_view::npos ? m.size() - i : close - i + 1;
      out += "'S'";
    } else if ((std::isdigit(static_cast<unsigned char>(c)) ||
                (c == '-' && i + 1 < m.size() && std::isdigit(static_cast<unsigned char>(m[i + 1])))) &&
               (i == 0 || !IsWordChar(m[i - 1]))) {
      const size_t sign = c == '-' ? 1 : 0;  // "-7" is a number like "7"
      n = sign + Span(m, i + sign, [](char x) {
        return std::isxdigit(static_cast<unsigned char>(x)) || x == '.' || x == 'e' || x == '-' ||
               x == '+';
      });
      // "4x8x16": sizes written as a product.
      while (i + n + 1 < m.size() && m[i + n] == 'x' &&
             std::isdigit(static_cast<unsigned char>(m[i + n + 1]))) {
        n += 1 + Span(m, i + n + 1, [](char x) { return std::isdigit(static_cast<unsigned char>(x)); });
      }
      // A long hex run (a digest) or a number: both become N.
      out += "N";
    } else if (IsWordChar(c)) {
      n = Span(m, i, IsWordChar);
      AppendWord(m.substr(i, n), &out);
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      n = Span(m, i, [](char x) { return std::isspace(static_cast<unsigned char>(x)) != 0; });
      if (!out.empty()) out += ' ';
    } else {
      n = 1;
      out += c;
    }
    i += n;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return CollapseNumberLists(out);
}

std::string NormalizeFrame(std::string_view frame) {
  std::string_view f = frame;
  // The isolation layer's format: "0x55d0c0ffee rk::compiler::Lower()".
  if (f.size() > 2 && f[0] == '0' && f[1] == 'x' && f.find(' ') != std::string_view::npos) {
    f = f.substr(f.find(' ') + 1);
    if (f == "(unknown)") return "?";
  }
  // backtrace_symbols' format: "binary(function+0x1f) [0xaddr]"; demangled
  // forms may be "function(args)+0x1f".
  if (size_t open = f.find('('); open != std::string_view::npos) {
    size_t plus = f.find('+', open);
    size_t close = f.find(')', open);
    if (plus != std::string_view::npos && close != std::string_view::npos && plus < close &&
        f.substr(0, open).find('/') != std::string_view::npos) {
      f = f.substr(open + 1, plus - open - 1);
    } else if (open > 0) {
      f = f.substr(0, open);
    }
  }
  if (size_t plus = f.find('+'); plus != std::string_view::npos) f = f.substr(0, plus);
  if (size_t sp = f.find(" ["); sp != std::string_view::npos) f = f.substr(0, sp);
  if (f.empty() || f[0] == '[') return "?";
  return std::string(f);
}

Signature CompileErrorSignature(std::string_view status_code, std::string_view message) {
  return {VerdictKind::kCompileError, absl::StrCat(A(status_code), ":", NormalizeMessage(message))};
}

Signature CrashSignature(std::string_view signal_name, const std::vector<std::string>& frames,
                         std::string_view phase) {
  std::vector<std::string> top;
  for (const std::string& f : frames) {
    if (top.size() == 3) break;
    std::string n = NormalizeFrame(f);
    if (n != "?") top.push_back(n);
  }
  if (top.empty()) return {VerdictKind::kCrash, absl::StrCat(A(signal_name), "@", A(phase))};
  return {VerdictKind::kCrash, absl::StrCat(A(signal_name), ":", absl::StrJoin(top, "|"))};
}

Signature TimeoutSignature(std::string_view phase) {
  return {VerdictKind::kTimeout, absl::StrCat("@", A(phase))};
}

Signature AccuracySignature(std::string_view subkind, std::string_view op, std::string_view dtype) {
  return {VerdictKind::kAccuracy, absl::StrCat(A(subkind), ":", A(op), ":", A(dtype))};
}

Signature GradientAccuracySignature(std::string_view subkind, std::string_view op,
                                    std::string_view dtype) {
  return {VerdictKind::kAccuracy, absl::StrCat(A(subkind), ":grad:", A(op), ":", A(dtype))};
}

std::optional<AccuracyDetail> ParseAccuracyDetail(const Signature& signature) {
  if (signature.kind != VerdictKind::kAccuracy) return std::nullopt;
  std::vector<std::string> parts = absl::StrSplit(signature.detail, ':');
  AccuracyDetail d;
  if (parts.size() == 4 && parts[1] == "grad") {
    d.gradient = true;
    parts.erase(parts.begin() + 1);
  }
  if (parts.size() != 3) return std::nullopt;
  d.subkind = parts[0];
  d.op = parts[1];
  d.dtype = parts[2];
  return d;
}

Signature AccuracySignatureLike(const AccuracyDetail& like, std::string_view subkind,
                                std::string_view op, std::string_view dtype) {
  return like.gradient ? GradientAccuracySignature(subkind, op, dtype)
                       : AccuracySignature(subkind, op, dtype);
}

Signature NondeterministicSignature(std::string_view op, std::string_view dtype) {
  return {VerdictKind::kNondeterministic, absl::StrCat(A(op), ":", A(dtype))};
}

namespace {

// "f32[1,64]" -> {"f32", 2}; "f32[]" -> {"f32", 0}; a text without brackets
// is all dtype, rank -1.
std::pair<std::string, int> DTypeAndRank(std::string_view type) {
  const size_t open = type.find('[');
  if (open == std::string_view::npos) return {std::string(type), -1};
  const std::string_view dims = type.substr(open + 1, type.find(']', open) - open - 1);
  int rank = dims.empty() ? 0 : 1;
  for (char c : dims) rank += c == ',';
  return {std::string(type.substr(0, open)), rank};
}

}  // namespace

Signature ShapeMismatchSignature(std::string_view op, std::string_view declared,
                                 std::string_view returned) {
  const auto [want_dtype, want_rank] = DTypeAndRank(declared);
  const auto [got_dtype, got_rank] = DTypeAndRank(returned);
  std::string how;
  if (want_dtype != got_dtype) {
    how = absl::StrCat("dtype:", want_dtype, "->", got_dtype);
  } else if (want_rank != got_rank) {
    how = absl::StrCat("rank:", got_rank > want_rank ? "+" : "", got_rank - want_rank);
  } else {
    how = "dims";
  }
  return {VerdictKind::kShapeMismatch, absl::StrCat(A(op), ":", how)};
}

}  // namespace rk::repro
