// A graph as the source of a jax function (the body of a standalone XLA
// reproducer, standalone.h): `make_graph(consts, planted)` returns
// `graph(*inputs)` whose every line is one node, with the semantics
// backends/jax_xla/serve gives each op (the helpers are in
// scripts/jax_head.py). `planted` switches on the jax_xla adapter's own planted
// relu fault (testing only). Constants are read from files; `constants` lists
// them by node id.
//
// Tested by repro/standalone/jax_source_test.cc.
#ifndef REPROKIT_REPRO_STANDALONE_JAX_SOURCE_H_
#define REPROKIT_REPRO_STANDALONE_JAX_SOURCE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::repro {

struct JaxSource {
  std::string make_graph;  // Python source of make_graph
  std::vector<std::pair<int, compiler::HostTensor>> constants;  // node id -> value
};

// InvalidArgument naming the node for an op with no jax form here.
absl::StatusOr<JaxSource> GraphAsJax(const compiler::Graph& graph);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STANDALONE_JAX_SOURCE_H_
