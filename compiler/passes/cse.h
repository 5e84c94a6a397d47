// cse: common subexpression elimination. Two nodes with the same op, the same
// operands (after earlier merges), equal attributes (literal tensors compared
// by bytes, floats bitwise) and the same type compute the same value; the
// later one is replaced by the earlier. Inputs are never merged. Every op is
// a pure function of its operands, so every merge is exact. Deterministic:
// the earliest equal node always wins.
//
// Tested by compiler/passes/cse_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_CSE_H_
#define REPROKIT_COMPILER_PASSES_CSE_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

absl::StatusOr<bool> Cse(Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_CSE_H_
