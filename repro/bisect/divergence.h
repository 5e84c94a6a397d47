// Divergence analysis: which node computes the first wrong value?
//
// Compiles the graph with every node made an output (MaterializeEveryNode)
// in checked mode (the verifier runs around every pass), runs it, and compares
// each node's compiled value, in topological order, with the reference
// interpreter's native-dtype and fp64 values of the same node (Evaluate with
// record_intermediates) under the accuracy policy the oracle uses. The first
// node the policy fails is where compiled code diverges; nodes after it may
// fail only because their inputs were already wrong. Note that the reference
// values of a node are computed from reference (not compiled) operands, so
// each row measures what that node's compiled code added on top of the error
// already upstream.
//
// Materializing every node changes fusion (every node gets a buffer), so a
// failure that needs a particular fusion may not show here; the report counts
// fusion groups in both compiles and says so.
//
// Needs: a verified graph, inputs matching it, and options whose compile does
// not crash or hang (the compile runs in this process; judge the target with
// the isolated oracle first). Tested by repro/bisect/divergence_test.cc.
#ifndef REPROKIT_REPRO_BISECT_DIVERGENCE_H_
#define REPROKIT_REPRO_BISECT_DIVERGENCE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"
#include "repro/oracle/accuracy.h"

namespace rk::repro {

struct DivergenceOptions {
  std::string policy = "torch";  // FindAccuracyPolicy name
  AccuracyOptions accuracy;
};

struct NodeError {
  compiler::NodeId id;
  std::string node;   // display name, without '%'
  std::string op;
  std::string dtype;
  bool graph_output = false;  // an output of the original graph
  OutputMetrics metrics;
};

struct DivergenceReport {
  std::string policy;
  std::vector<NodeError> nodes;  // every non-input node, topological order
  int first_divergent = -1;      // index into nodes; -1 when every node passes
  int fusion_groups_original = -1;  // -1 when the original does not compile
  int fusion_groups_checked = 0;

  const NodeError* divergent() const {
    return first_divergent < 0 ? nullptr : &nodes[first_divergent];
  }
  std::string ToText() const;
  Json ToJson() const;
};

absl::StatusOr<DivergenceReport> AnalyzeDivergence(const compiler::Graph& graph,
                                                   absl::Span<const compiler::HostTensor> inputs,
                                                   const compiler::CompileOptions& options,
                                                   const DivergenceOptions& divergence_options);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BISECT_DIVERGENCE_H_
