#include "repro/standalone/python_graph.h"

#include <cctype>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/op.h"

namespace rk::repro {

using compiler::Graph;
using compiler::Node;
using compiler::NodeId;

absl::StatusOr<PythonGraph> GraphAsPython(const Graph& graph, absl::string_view make_graph_params,
                                          absl::string_view framework, const PythonNodeExpr& expr) {
  PythonGraph out;
  std::vector<std::string> params;
  std::string body;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const NodeId id{i};
    const Node& node = graph.node(id);
    if (node.op == compiler::Op::kInput) {
      params.push_back(PythonVar(graph, id));
      continue;
    }
    if (node.op == compiler::Op::kConstant) {
      absl::StatusOr<compiler::HostTensor> value = node.attrs.GetTensor("value");
      if (!value.ok()) return PythonNoForm(graph, id, framework, value.status().message());
      out.constants.emplace_back(i, *std::move(value));
      absl::StrAppend(&body, "        ", PythonVar(graph, id), " = consts[", i, "]\n");
      continue;
    }
    absl::StatusOr<std::string> text = expr(id);
    if (!text.ok()) return text.status();
    absl::StrAppend(&body, "        ", PythonVar(graph, id), " = ", *text, "  # %",
                    graph.DisplayName(id), " = ", std::string(compiler::OpName(node.op)), "\n");
  }
  std::vector<std::string> results;
  for (NodeId o : graph.outputs()) results.push_back(PythonVar(graph, o));
  out.make_graph = absl::StrCat("\n\ndef make_graph(", make_graph_params,
                                "):\n"
                                "    \"\"\"The graph @",
                                graph.name(),
                                ": one line per node.\"\"\"\n\n"
                                "    def graph(",
                                absl::StrJoin(params, ", "), "):\n", body, "        return (",
                                absl::StrJoin(results, ", "), results.size() == 1 ? ",)\n" : ")\n",
                                "\n    return graph\n");
  return out;
}

std::string PythonVar(const Graph& graph, NodeId id) {
  std::string name;
  for (char c : graph.node(id).name) {
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  }
  return name.empty() ? absl::StrCat("v", id.value) : absl::StrCat("v", id.value, "_", name);
}

absl::Status PythonNoForm(const Graph& graph, NodeId id, absl::string_view framework,
                          absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("node %", graph.DisplayName(id), " (",
                                                 std::string(compiler::OpName(graph.node(id).op)),
                                                 "): no ", framework, " form: ", why));
}

std::string PythonFloat(double v) {
  if (std::isnan(v)) return "math.nan";
  if (std::isinf(v)) return v > 0 ? "math.inf" : "-math.inf";
  return absl::StrFormat("%.17g", v);
}

std::string PythonIntList(const std::vector<int64_t>& v) {
  return "[" + absl::StrJoin(v, ", ") + "]";
}

std::string PythonBool(bool b) { return b ? "True" : "False"; }

std::string PythonDType(compiler::DType d) {
  return absl::StrCat("DTYPES[\"", std::string(compiler::DTypeName(d)), "\"]");
}

absl::StatusOr<std::string> PythonAttrs::Ints(const char* name) const {
  absl::StatusOr<std::vector<int64_t>> v = graph_.node(id_).attrs.GetInts(name);
  if (!v.ok()) return PythonNoForm(graph_, id_, framework_, v.status().message());
  return PythonIntList(*v);
}

std::string PythonAttrs::Int(const char* name, int64_t fallback) const {
  absl::StatusOr<int64_t> v = graph_.node(id_).attrs.GetInt(name);
  return absl::StrCat(v.ok() ? *v : fallback);
}

std::string PythonAttrs::Flag(const char* name) const {
  absl::StatusOr<bool> v = graph_.node(id_).attrs.GetBool(name);
  return PythonBool(v.ok() && *v);
}

double PythonAttrs::Number(const char* name, double fallback) const {
  absl::StatusOr<double> v = graph_.node(id_).attrs.GetFloat(name);
  return v.ok() ? *v : fallback;
}

}  // namespace rk::repro
