// canonicalize: puts ops in one normal form so later passes (CSE, algebraic
// simplification) match fewer shapes, and drops no-op layout and casts:
//   add/mul/maximum/minimum/eq/ne/and/or(const, x) -> op(x, const)
//   lt/le/gt/ge(const, x)                          -> gt/ge/lt/le(x, const)
//   cast(x) to x's own dtype                       -> x
//   reshape(x) to x's own shape                    -> x
//   transpose(x) with the identity permutation     -> x
// "const" is a constant, full or iota node. Every rule is exact.
//
// Tested by compiler/passes/canonicalize_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_CANONICALIZE_H_
#define REPROKIT_COMPILER_PASSES_CANONICALIZE_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

absl::StatusOr<bool> Canonicalize(Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_CANONICALIZE_H_
