// Verify: checks every invariant listed in graph.h and returns the first
// violation as InvalidArgument naming the node and the rule, e.g.
// "node %7 (add): operand %9 is defined after its use" or
// "node %3 (exp): declared type f32[4] but inference gives f32[8]".
//
// Tested by compiler/ir/verifier_test.cc.
#ifndef REPROKIT_COMPILER_IR_VERIFIER_H_
#define REPROKIT_COMPILER_IR_VERIFIER_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace rk::compiler {

absl::Status Verify(const Graph& graph);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_VERIFIER_H_
