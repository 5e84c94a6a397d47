// Small random valid graphs for property tests of the text format, hashing and
// serialization. Every op family and dtype appears across seeds, literals
// include exact corner values (signed zeros, infinities, canonical NaNs,
// subnormals, random bit patterns), and about half of the nodes are named.
// Deterministic for a given seed. The fuzzer's generator lives in testing/;
// this one only exercises the IR's own code.
//
// Used by compiler/ir/parser_test.cc, serialize_test.cc and canonical_hash_test.cc.
#ifndef REPROKIT_COMPILER_IR_RANDOM_GRAPH_TESTUTIL_H_
#define REPROKIT_COMPILER_IR_RANDOM_GRAPH_TESTUTIL_H_

#include <cstdint>
#include <random>

#include "compiler/ir/graph.h"

namespace rk::compiler {

// A verified graph with about `steps` attempted nodes after its inputs.
Graph RandomGraph(uint64_t seed, int steps = 14);

// A literal tensor whose values round-trip exactly through the text format.
HostTensor RandomLiteral(const TensorType& type, std::mt19937_64& rng);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_RANDOM_GRAPH_TESTUTIL_H_
