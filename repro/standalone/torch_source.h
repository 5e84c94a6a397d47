// A graph as the source of a PyTorch function (the body of a standalone
// Inductor reproducer, standalone.h): `make_graph(device, consts)` returns
// `graph(*inputs)` whose every line is one node, with the semantics
// backends/torch_inductor/serve gives each op (the helpers are in
// scripts/torch_head.py). Constants are read from files; `constants` lists
// them by node id.
//
// Tested by repro/standalone/standalone_test.cc.
#ifndef REPROKIT_REPRO_STANDALONE_TORCH_SOURCE_H_
#define REPROKIT_REPRO_STANDALONE_TORCH_SOURCE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::repro {

struct TorchSource {
  std::string make_graph;  // Python source of make_graph
  std::vector<std::pair<int, compiler::HostTensor>> constants;  // node id -> value
};

// InvalidArgument naming the node for an op with no torch form here.
absl::StatusOr<TorchSource> GraphAsTorch(const compiler::Graph& graph);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STANDALONE_TORCH_SOURCE_H_
