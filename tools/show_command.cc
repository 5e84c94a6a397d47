// `reprokit show GRAPH [--stats] [--dot] [--svg OUT]`: prints a graph file
// back in the text format, its statistics, or its Graphviz form.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/subprocess.h"
#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

extern char** environ;

namespace rk::tools {
namespace {

using compiler::Graph;
using compiler::Node;
using compiler::NodeId;

std::string Stats(const Graph& g) {
  std::map<std::string, int> per_op;
  int64_t total_elements = 0;
  for (const Node& n : g.nodes()) {
    ++per_op[std::string(compiler::OpName(n.op))];
    total_elements += n.type.num_elements();
  }
  std::string out = absl::StrCat("graph @", g.name(), "\n", "nodes: ", g.num_nodes(), " (",
                                 g.num_inputs(), " inputs, ", g.num_nodes() - g.num_inputs(),
                                 " ops)\n", "ops:\n");
  for (const auto& [op, count] : per_op) absl::StrAppend(&out, "  ", op, " ", count, "\n");
  absl::StrAppend(&out, "inputs:\n");
  for (NodeId id : g.inputs()) {
    absl::StrAppend(&out, "  %", g.DisplayName(id), ": ", g.type(id).ToString(), "\n");
  }
  absl::StrAppend(&out, "outputs:\n");
  for (NodeId id : g.outputs()) {
    absl::StrAppend(&out, "  %", g.DisplayName(id), ": ", g.type(id).ToString(), "\n");
  }
  absl::StrAppend(&out, "total elements: ", total_elements, "\n",
                  "canonical hash: ", compiler::CanonicalHash(g), "\n");
  return out;
}

// Text inside a double-quoted Graphviz string.
std::string DotEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string AttrText(const compiler::AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) return absl::StrCat(v);
        if constexpr (std::is_same_v<T, double>) return compiler::FormatDouble(v);
        if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        if constexpr (std::is_same_v<T, std::string>) return compiler::QuoteString(v);
        if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          return absl::StrCat("[", absl::StrJoin(v, ","), "]");
        }
        if constexpr (std::is_same_v<T, compiler::DType>) return std::string(DTypeName(v));
        if constexpr (std::is_same_v<T, compiler::HostTensor>) {
          return absl::StrCat("dense<", v.type().ToString(), ">");
        }
        return "?";
      },
      value);
}

std::string Dot(const Graph& g) {
  std::string out = absl::StrCat("digraph \"", DotEscape(g.name()), "\" {\n",
                                 "  node [shape=box, fontname=\"monospace\"];\n");
  for (int i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(NodeId(i));
    std::string label = absl::StrCat("%", g.DisplayName(NodeId(i)), " = ",
                                     std::string(compiler::OpName(n.op)));
    std::vector<std::string> attrs;
    for (const auto& [name, value] : n.attrs.values()) {
      attrs.push_back(absl::StrCat(name, "=", AttrText(value)));
    }
    if (!attrs.empty()) absl::StrAppend(&label, "\n", absl::StrJoin(attrs, ", "));
    absl::StrAppend(&label, "\n", n.type.ToString());
    std::string escaped = DotEscape(label);
    std::string lines;
    for (char c : escaped) lines += c == '\n' ? std::string("\\n") : std::string(1, c);
    absl::StrAppend(&out, "  n", i, " [label=\"", lines, "\"",
                    n.op == compiler::Op::kInput ? ", shape=ellipse" : "", "];\n");
    for (NodeId operand : n.operands) absl::StrAppend(&out, "  n", operand.value, " -> n", i, ";\n");
  }
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    absl::StrAppend(&out, "  out", k, " [label=\"return #", k, "\", shape=plaintext];\n", "  n",
                    g.outputs()[k].value, " -> out", k, ";\n");
  }
  absl::StrAppend(&out, "}\n");
  return out;
}

// Renders `dot_text` to `svg_path` with Graphviz's `dot`.
absl::Status WriteSvg(const std::string& dot_text, const std::string& svg_path) {
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

int RunShow(absl::Span<const std::string> args) {
  bool stats = false, dot = false;
  std::string svg;
  FlagSet flags("show GRAPH [--stats] [--dot] [--svg OUT]",
                "Parses a graph file (text format, docs/FORMAT.md) and prints it back in\n"
                "normal form, its statistics (node count per op, inputs and outputs with\n"
                "types, total elements, canonical hash) or its Graphviz form.");
  flags.Bool("stats", &stats, "print statistics instead of the graph");
  flags.Bool("dot", &dot, "print Graphviz dot text instead of the graph");
  flags.String("svg", &svg, "render the graph to this SVG file with Graphviz's dot");
  auto positional = flags.Parse(args);
  if (!positional.ok()) return ReportError("show", positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (positional->size() != 1) {
    return ReportError("show", absl::InvalidArgumentError("expects one GRAPH file"));
  }
  absl::StatusOr<Graph> graph = compiler::ParseFile((*positional)[0]);
  if (!graph.ok()) return ReportError("show", graph.status());
  if (stats) std::fputs(Stats(*graph).c_str(), stdout);
  if (dot) std::fputs(Dot(*graph).c_str(), stdout);
  if (!svg.empty()) {
    absl::Status s = WriteSvg(Dot(*graph), svg);
    if (!s.ok()) {
      return ReportError("show", absl::Status(s.code(), absl::StrCat("--svg: ", s.message())));
    }
  }
  if (!stats && !dot && svg.empty()) std::fputs(compiler::PrintInline(*graph).c_str(), stdout);
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("show", "print a graph, its statistics or its Graphviz form", &RunShow);

}  // namespace rk::tools
