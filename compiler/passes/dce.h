// dce: dead code elimination. Removes every node whose value reaches no graph
// output, one numbered application per removed node, in reverse id order (a
// user before its operands). Inputs always stay: the signature is fixed. A
// node whose removal is refused (cap, disabled) keeps its operands alive.
//
// Tested by compiler/passes/dce_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_DCE_H_
#define REPROKIT_COMPILER_PASSES_DCE_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

absl::StatusOr<bool> Dce(Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_DCE_H_
