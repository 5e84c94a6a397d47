#include "testing/fuzz/finding_signature.h"

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/sha256.h"
#include "compiler/ir/canonical_hash.h"

namespace rk::fuzz {

using compiler::AttrValue;
using compiler::Graph;

namespace {

// Float dtypes count as one family: the same culprit shows up in whatever
// dtype the random graph gave it, and the minimizer does not narrow f64.
std::string DTypeFamily(compiler::DType dtype) {
  if (compiler::IsFloat(dtype)) return "float";
  return std::string(compiler::DTypeName(dtype));
}

// Sizes and positions along a dimension do not count (like the shapes); the
// rest (axes, perm, dtype, keepdim) is kept as it is.
std::string AttrText(const std::string& name, const AttrValue& value) {
  if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) {
    const bool sizes = name == "shape" || name == "start" || name == "limit" || name == "stride";
    return sizes ? "sizes" : absl::StrCat("[", absl::StrJoin(*ints, ","), "]");
  }
  if (const auto* dtype = std::get_if<compiler::DType>(&value)) return DTypeFamily(*dtype);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&value)) {
    return name == "axis" ? absl::StrCat(*i) : "int";
  }
  // Float values (full's value, eps) and literal tensors: values do not count.
  return "v";
}

}  // namespace

std::string BucketedGraphText(const Graph& graph) {
  std::string text;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const compiler::Node& node = graph.node(compiler::NodeId(i));
    // Inputs, constants, full and iota are all just leaves to a culprit.
    if (node.op == compiler::Op::kInput || node.op == compiler::Op::kConstant ||
        node.op == compiler::Op::kFull || node.op == compiler::Op::kIota) {
      absl::StrAppend(&text, i, "=leaf:", DTypeFamily(node.type.dtype), "\n");
      continue;
    }
    std::vector<std::string> operands;
    for (compiler::NodeId id : node.operands) operands.push_back(absl::StrCat(id.value));
    std::vector<std::string> attrs;
    for (const auto& [name, value] : node.attrs.values()) {
      attrs.push_back(absl::StrCat(name, "=", AttrText(name, value)));
    }
    absl::StrAppend(&text, i, "=", std::string(compiler::OpName(node.op)), "(",
                    absl::StrJoin(operands, ","), "){", absl::StrJoin(attrs, ","), "}:",
                    DTypeFamily(node.type.dtype), "\n");
  }
  std::vector<std::string> outputs;
  for (compiler::NodeId id : graph.outputs()) outputs.push_back(absl::StrCat(id.value));
  absl::StrAppend(&text, "return ", absl::StrJoin(outputs, ","), "\n");
  return text;
}

std::string GraphShapeHash(const Graph& graph) {
  return Sha256Hex(BucketedGraphText(graph)).substr(0, 12);
}

std::string FindingSignature(const repro::Signature& verdict, const Graph& minimized) {
  std::string text = verdict.ToString();
  // The normalized message of a compile error names its cause, and a wrong
  // output type says op and how; where the minimizer stopped does not count.
  if (verdict.kind == repro::VerdictKind::kCompileError ||
      verdict.kind == repro::VerdictKind::kShapeMismatch) {
    return text;
  }
  // accuracy:<subkind>:<op>:<dtype> and nondeterministic:<op>:<dtype>: the
  // dtype goes, as in the graph hash.
  if (verdict.kind == repro::VerdictKind::kAccuracy ||
      verdict.kind == repro::VerdictKind::kNondeterministic) {
    const size_t colon = text.rfind(':');
    if (colon != std::string::npos && colon > text.find(':')) {
      const std::string dtype = text.substr(colon + 1);
      std::optional<compiler::DType> parsed = compiler::ParseDType(dtype);
      if (parsed && compiler::IsFloat(*parsed)) text = text.substr(0, colon) + ":float";
    }
  }
  return absl::StrCat(text, "#", GraphShapeHash(minimized));
}

std::string FindingName(const repro::Signature& verdict, const Graph& minimized) {
  std::string name(repro::VerdictKindName(verdict.kind));
  // The op of an accuracy / nondeterminism signature says the most.
  std::vector<std::string> parts;
  std::string part;
  for (char c : verdict.detail) {
    if (c == ':' || c == '@' || c == '|') {
      parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  parts.push_back(part);
  std::string hint;
  if (verdict.kind == repro::VerdictKind::kAccuracy && parts.size() >= 2) hint = parts[1];
  if (verdict.kind == repro::VerdictKind::kNondeterministic && !parts.empty()) hint = parts[0];
  if (verdict.kind == repro::VerdictKind::kCrash && !parts.empty()) hint = parts[0];
  std::string clean;
  for (char c : hint) {
    if (std::isalnum(static_cast<unsigned char>(c))) clean += static_cast<char>(std::tolower(c));
    else if (!clean.empty() && clean.back() != '_') clean += '_';
  }
  if (clean.size() > 24) clean.resize(24);
  while (!clean.empty() && clean.back() == '_') clean.pop_back();
  if (!clean.empty()) absl::StrAppend(&name, "_", clean);
  return absl::StrCat(name, "_", GraphShapeHash(minimized).substr(0, 8));
}

}  // namespace rk::fuzz
