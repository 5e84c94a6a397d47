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
                                  VerdictKind::kCannotJudge};

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
      "cannot_judge)"));
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
  return s;
}

std::string NormalizeMessage(std::string_view m) {
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
    } else if (c == '/' && (i == 0 || m[i - 1] == ' ' || m[i - 1] == '\'' || m[i - 1] == '"')) {
      n = Span(m, i, [](char x) { return x != ' ' && x != ':' && x != '\'' && x != '"'; });
      out += "PATH";
    } else if (c == '\'' || c == '"') {
      size_t close = m.find(c, i + 1);
      n = close == std::string_view::npos ? m.size() - i : close - i + 1;
      out += "'S'";
    } else if (std::isdigit(static_cast<unsigned char>(c)) && (i == 0 || !IsWordChar(m[i - 1]))) {
      n = Span(m, i, [](char x) {
        return std::isxdigit(static_cast<unsigned char>(x)) || x == '.' || x == 'e' || x == '-' ||
               x == '+';
      });
      // A long hex run (a digest) or a number: both become N.
      out += "N";
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
  return out;
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

}  // namespace rk::repro
