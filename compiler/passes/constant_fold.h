// constant_fold: evaluates nodes whose operands are all constants (constant,
// full or iota) with the reference interpreter and replaces each by a
// `constant` node holding the value, so folding agrees bit for bit with the
// reference. Folding chains: a folded node is a constant for its users.
// Sources themselves stay as they are (full and iota are already compact);
// results over kMaxFoldedElements, and operands over kMaxOperandElements, are
// not folded, so folding never blows up the graph or the compile time.
//
// Tested by compiler/passes/constant_fold_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_CONSTANT_FOLD_H_
#define REPROKIT_COMPILER_PASSES_CONSTANT_FOLD_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

inline constexpr int64_t kMaxFoldedElements = 4096;
inline constexpr int64_t kMaxOperandElements = 1 << 16;

absl::StatusOr<bool> ConstantFold(Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_CONSTANT_FOLD_H_
