#include "repro/oracle/computation_precision.h"

#include "compiler/ir/dtype.h"

namespace rk::repro {
namespace {

// Higher is more precise; non-float dtypes do not lower a path's precision.
int Rank(compiler::DType dtype) {
  switch (dtype) {
    case compiler::DType::kBF16: return 0;
    case compiler::DType::kF16: return 1;
    case compiler::DType::kF32: return 2;
    default: return 3;
  }
}

}  // namespace

std::vector<compiler::DType> OutputPrecisions(const compiler::Graph& graph) {
  // Operands have smaller ids than their users: one forward sweep.
  std::vector<compiler::DType> lowest(graph.num_nodes(), compiler::DType::kF64);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const compiler::Node& node = graph.nodes()[i];
    compiler::DType d = compiler::IsFloat(node.type.dtype) ? node.type.dtype : compiler::DType::kF64;
    for (compiler::NodeId operand : node.operands) {
      if (Rank(lowest[operand.value]) < Rank(d)) d = lowest[operand.value];
    }
    lowest[i] = d;
  }
  std::vector<compiler::DType> out;
  for (compiler::NodeId id : graph.outputs()) out.push_back(lowest[id.value]);
  return out;
}

}  // namespace rk::repro
