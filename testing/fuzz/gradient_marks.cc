#include "testing/fuzz/gradient_marks.h"

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/autodiff/joint_graph.h"
#include "repro/oracle/gradients.h"

namespace rk::fuzz {

compiler::Graph MarkForGradients(const compiler::Graph& graph, const std::string& mode,
                                 uint64_t seed) {
  if (mode == "none") return graph;
  compiler::autodiff::GradSpec spec = compiler::autodiff::GradSpecAllFloat(graph);
  if (spec.inputs.empty()) return graph;
  if (mode == "random" && spec.inputs.size() > 1) {
    // SplitMix64: one bit per float input; at least one is kept.
    std::vector<compiler::NodeId> picked;
    uint64_t state = seed ^ 0x6772616473ULL;
    for (compiler::NodeId id : spec.inputs) {
      state += 0x9e3779b97f4a7c15ULL;
      uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      if (((z ^ (z >> 31)) & 1) != 0) picked.push_back(id);
    }
    if (picked.empty()) picked.push_back(spec.inputs[seed % spec.inputs.size()]);
    spec.inputs = std::move(picked);
  }
  absl::StatusOr<compiler::Graph> marked = repro::WithGradientMarks(graph, spec);
  if (!marked.ok() || !compiler::autodiff::BuildJointGraph(*marked, spec).ok()) return graph;
  return *std::move(marked);
}

}  // namespace rk::fuzz
