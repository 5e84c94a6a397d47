// A stable fingerprint of a graph: SHA-256 of PrintCanonical(graph), so node
// names and the graph's name do not matter but ops, attributes, types,
// constants and structure do. Stable across runs and machines.
//
// Tested by compiler/ir/canonical_hash_test.cc.
#ifndef REPROKIT_COMPILER_IR_CANONICAL_HASH_H_
#define REPROKIT_COMPILER_IR_CANONICAL_HASH_H_

#include <string>

#include "compiler/ir/graph.h"

namespace rk::compiler {

// 64 lowercase hex characters.
std::string CanonicalHash(const Graph& graph);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_CANONICAL_HASH_H_
