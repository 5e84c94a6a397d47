// Small random valid graphs shaped to exercise the graph passes: composites,
// constant subgraphs, duplicated nodes, dead nodes, identities (x*1, x+-0,
// neg(neg(x)), cast round trips), chains of layout ops and value-changing
// candidates (x-x, x*0). Values stay small; out-of-domain ops (log of a
// negative) may produce NaN, which both sides of a comparison share.
// Deterministic for a given seed.
//
// Used by compiler/passes/pipeline_property_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_RANDOM_GRAPH_FOR_TEST_H_
#define REPROKIT_COMPILER_PASSES_RANDOM_GRAPH_FOR_TEST_H_

#include <cstdint>

#include "compiler/ir/graph.h"

namespace rk::compiler {

struct RandomGraphOptions {
  int steps = 14;           // attempted nodes after the inputs
  bool composites = true;   // softmax, log_softmax, layer_norm, rms_norm, gelu
};

// A verified graph; every seed gives a different one.
Graph RandomGraphForPasses(uint64_t seed, const RandomGraphOptions& options = {});

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_RANDOM_GRAPH_FOR_TEST_H_
