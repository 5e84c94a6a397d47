// What the Python forms of a graph share (torch_source.h, jax_source.h): the
// walk that makes `make_graph(...)` (inputs become `graph`'s parameters,
// constants `consts[i]` lines, every other node one `vN = <expr>  # %name = op`
// line), the variable names, and the literal and attribute texts. Each form
// keeps only its per-node expressions.
//
// Tested by repro/standalone/python_graph_test.cc (and through the forms by
// standalone_test.cc and jax_source_test.cc).
#ifndef REPROKIT_REPRO_STANDALONE_PYTHON_GRAPH_H_
#define REPROKIT_REPRO_STANDALONE_PYTHON_GRAPH_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::repro {

struct PythonGraph {
  std::string make_graph;                                       // Python source of make_graph
  std::vector<std::pair<int, compiler::HostTensor>> constants;  // node id -> value
};

// The Python text of one node that is neither an input nor a constant, or an
// error (PythonNoForm) naming it.
using PythonNodeExpr = std::function<absl::StatusOr<std::string>(compiler::NodeId)>;

// `def make_graph(<make_graph_params>):` returning `graph(*inputs)`, one line
// per node; `framework` names the form in errors ("torch", "jax").
absl::StatusOr<PythonGraph> GraphAsPython(const compiler::Graph& graph,
                                          absl::string_view make_graph_params,
                                          absl::string_view framework, const PythonNodeExpr& expr);

// The variable of a node: `v<id>` or `v<id>_<name, non-alphanumerics as _>`.
std::string PythonVar(const compiler::Graph& graph, compiler::NodeId id);

// InvalidArgument "node %name (op): no <framework> form: <why>".
absl::Status PythonNoForm(const compiler::Graph& graph, compiler::NodeId id,
                          absl::string_view framework, absl::string_view why);

// Literals: a float exactly (math.nan, math.inf), `[1, 2]`, True/False, and
// `DTYPES["f32"]` (the scripts' table of dtypes).
std::string PythonFloat(double v);
std::string PythonIntList(const std::vector<int64_t>& v);
std::string PythonBool(bool b);
std::string PythonDType(compiler::DType d);

// The attributes of one node as Python text; a missing int list is the error
// naming the node, the others fall back.
class PythonAttrs {
 public:
  PythonAttrs(const compiler::Graph& graph, compiler::NodeId id, absl::string_view framework)
      : graph_(graph), id_(id), framework_(framework) {}

  absl::StatusOr<std::string> Ints(const char* name) const;
  std::string Int(const char* name, int64_t fallback) const;
  std::string Flag(const char* name) const;  // False when missing
  double Number(const char* name, double fallback) const;

 private:
  const compiler::Graph& graph_;
  compiler::NodeId id_;
  absl::string_view framework_;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STANDALONE_PYTHON_GRAPH_H_
