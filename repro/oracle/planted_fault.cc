#include "repro/oracle/planted_fault.h"

#include "compiler/options/faults.h"

namespace rk::repro {

bool PlantsValueFault(const compiler::Graph& graph, const compiler::CompileOptions& options) {
  if (options.faults.empty()) return false;
  absl::StatusOr<compiler::FaultSet> faults = compiler::FaultSet::Parse(options.faults);
  if (!faults.ok()) return false;
  if (faults->Has("fuse", compiler::FaultKind::kWrongIndex)) return true;
  for (const compiler::Node& node : graph.nodes()) {
    if (faults->Has(node.op, compiler::FaultKind::kAccuracy) ||
        faults->Has(node.op, compiler::FaultKind::kDropLast)) {
      return true;
    }
  }
  return false;
}

}  // namespace rk::repro
