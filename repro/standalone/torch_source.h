// A graph as the source of a PyTorch function (the body of a standalone
// Inductor reproducer, standalone.h): `make_graph(device, consts)` returns
// `graph(*inputs)` whose every line is one node, with the semantics
// backends/torch_inductor/serve gives each op (the helpers are in
// scripts/torch_head.py). Constants are read from files; `constants` lists
// them by node id.
//
// The walk, the variable names and the literals are python_graph.h's.
//
// Tested by repro/standalone/standalone_test.cc.
#ifndef REPROKIT_REPRO_STANDALONE_TORCH_SOURCE_H_
#define REPROKIT_REPRO_STANDALONE_TORCH_SOURCE_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "repro/standalone/python_graph.h"

namespace rk::repro {

using TorchSource = PythonGraph;  // make_graph, and the constants by node id

// InvalidArgument naming the node for an op with no torch form here.
absl::StatusOr<TorchSource> GraphAsTorch(const compiler::Graph& graph);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STANDALONE_TORCH_SOURCE_H_
