#include "compiler/ir/dot_printer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/subprocess.h"
#include "compiler/ir/literal.h"

namespace rk::compiler {
namespace {

// Text inside a double-quoted Graphviz string.
std::string DotEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string AttrText(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) return absl::StrCat(v);
        if constexpr (std::is_same_v<T, double>) return FormatDouble(v);
        if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        if constexpr (std::is_same_v<T, std::string>) return QuoteString(v);
        if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          return absl::StrCat("[", absl::StrJoin(v, ","), "]");
        }
        if constexpr (std::is_same_v<T, DType>) return std::string(DTypeName(v));
        if constexpr (std::is_same_v<T, HostTensor>) {
          return absl::StrCat("dense<", v.type().ToString(), ">");
        }
        return "?";
      },
      value);
}

// "%name = op", the attributes, the type: one line each, escaped, with the
// line breaks spelled "\n" for Graphviz.
std::string NodeLabel(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  std::string label = absl::StrCat("%", g.DisplayName(id), " = ", std::string(OpName(n.op)));
  std::vector<std::string> attrs;
  for (const auto& [name, value] : n.attrs.values()) {
    attrs.push_back(absl::StrCat(name, "=", AttrText(value)));
  }
  if (!attrs.empty()) absl::StrAppend(&label, "\n", absl::StrJoin(attrs, ", "));
  absl::StrAppend(&label, "\n", n.type.ToString());
  std::string lines;
  for (char c : DotEscape(label)) lines += c == '\n' ? std::string("\\n") : std::string(1, c);
  return lines;
}

}  // namespace

std::string PrintDot(const Graph& g) { return PrintDot(g, DotStyle()); }

std::string PrintDot(const Graph& g, const DotStyle& style) {
  std::string out = absl::StrCat("digraph \"", DotEscape(g.name()), "\" {\n",
                                 "  node [shape=box, fontname=\"monospace\"];\n");
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(NodeId(i));
    std::string extra;
    if (style.element_ids) absl::StrAppend(&extra, ", id=\"n", i, "\"");
    if (auto it = style.fill.find(i); it != style.fill.end()) {
      absl::StrAppend(&extra, ", style=filled, fillcolor=\"", DotEscape(it->second), "\"");
    }
    absl::StrAppend(&out, "  n", i, " [label=\"", NodeLabel(g, NodeId(i)), "\"",
                    n.op == Op::kInput ? ", shape=ellipse" : "", extra, "];\n");
    for (NodeId operand : n.operands) absl::StrAppend(&out, "  n", operand.value, " -> n", i, ";\n");
  }
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    absl::StrAppend(&out, "  out", k, " [label=\"return #", k, "\", shape=plaintext",
                    style.element_ids ? absl::StrCat(", id=\"out", k, "\"") : "", "];\n", "  n",
                    g.outputs()[k].value, " -> out", k, ";\n");
  }
  std::vector<bool> placed(g.num_nodes(), false);
  for (size_t c = 0; c < style.clusters.size(); ++c) {
    std::string members;
    for (NodeId id : style.clusters[c].nodes) {
      if (id.value < 0 || id.value >= g.num_nodes() || placed[id.value]) continue;
      placed[id.value] = true;
      absl::StrAppend(&members, " n", id.value, ";");
    }
    if (members.empty()) continue;
    absl::StrAppend(&out, "  subgraph cluster_", c, " {\n    label=\"",
                    DotEscape(style.clusters[c].label), "\"; style=dashed;",
                    style.element_ids ? absl::StrCat(" id=\"cluster", c, "\";") : "", "\n   ",
                    members, "\n  }\n");
  }
  absl::StrAppend(&out, "}\n");
  return out;
}

absl::Status RenderDotToSvg(const std::string& dot_text, const std::string& svg_path) {
  char tmp[] = "/tmp/reprokit_show_XXXXXX";
  const int fd = ::mkstemp(tmp);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create a temp file: ", strerror(errno)));
  ::close(fd);
  absl::Status status = WriteStringToFile(tmp, dot_text);
  if (status.ok()) {
    absl::StatusOr<SubprocessResult> run = RunSubprocess({"dot", "-Tsvg", "-o" + svg_path, tmp});
    if (!run.ok()) {
      status = run.status().code() == absl::StatusCode::kNotFound
                   ? absl::UnavailableError("graphviz 'dot' was not found on PATH (install graphviz)")
                   : run.status();
    } else if (!run->ok()) {
      status = absl::InternalError(absl::StrCat("dot failed writing '", svg_path, "': ",
                                                run->Describe(), " ", run->stderr_text));
    }
  }
  ::unlink(tmp);
  return status;
}

}  // namespace rk::compiler
