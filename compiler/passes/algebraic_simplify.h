// algebraic_simplify: local algebraic identities. ("c" is a constant or full
// node whose elements all equal the value shown; a rule applies only when the
// result keeps the node's type, so broadcasting never changes.)
// Exact rules, always on (bit-exact for every input, NaN and -0.0 included):
//   x*1, 1*x, x/1 -> x;  x + -0.0, x - +0.0 -> x (integers: x+0, x-0 -> x)
//   integers: x-x -> 0, x*0 -> 0
//   neg(neg(x)) -> x;  abs(abs(x)), abs(neg(x)) -> abs(x);  relu(relu(x)) -> relu(x)
//   cast(cast(x: A) to B) to A -> x when B holds every A value exactly
// Value-changing rules, only with options.fast_math:
//   x + +0.0, x - -0.0 -> x   (wrong for x = -0.0)
//   x/c -> x*(1/c)            (one more rounding)
//   x-x -> 0, x*0 -> 0        (wrong for NaN and Inf)
//   exp(log(x)) -> x, log(exp(x)) -> x   (wrong out of domain / on overflow)
//
// Tested by compiler/passes/algebraic_simplify_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_ALGEBRAIC_SIMPLIFY_H_
#define REPROKIT_COMPILER_PASSES_ALGEBRAIC_SIMPLIFY_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

absl::StatusOr<bool> AlgebraicSimplify(Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_ALGEBRAIC_SIMPLIFY_H_
