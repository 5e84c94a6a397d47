// A graph as the source of a jax function (the body of a standalone XLA
// reproducer, standalone.h): `make_graph(consts, planted)` returns
// `graph(*inputs)` whose every line is one node, with the semantics
// backends/jax_xla/serve gives each op (the helpers are in
// scripts/jax_head.py). `planted` switches on the jax_xla adapter's own planted
// relu fault (testing only). Constants are read from files; `constants` lists
// them by node id.
//
// The walk, the variable names and the literals are python_graph.h's.
//
// Tested by repro/standalone/jax_source_test.cc.
#ifndef REPROKIT_REPRO_STANDALONE_JAX_SOURCE_H_
#define REPROKIT_REPRO_STANDALONE_JAX_SOURCE_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "repro/standalone/python_graph.h"

namespace rk::repro {

using JaxSource = PythonGraph;  // make_graph, and the constants by node id

// InvalidArgument naming the node for an op with no jax form here.
absl::StatusOr<JaxSource> GraphAsJax(const compiler::Graph& graph);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STANDALONE_JAX_SOURCE_H_
