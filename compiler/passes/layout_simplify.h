// layout_simplify: removes and merges layout ops (views), all exact:
//   reshape/squeeze/unsqueeze of reshape/squeeze/unsqueeze -> one reshape, or x
//     when the shape comes back (all three are row-major reshapes)
//   reshape/squeeze/unsqueeze that keeps the shape          -> x
//   transpose(transpose(x, p), q) -> transpose(x, p o q), or x if that is the identity
//   broadcast_to(x) of x's own shape                        -> x
//
// Tested by compiler/passes/layout_simplify_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_LAYOUT_SIMPLIFY_H_
#define REPROKIT_COMPILER_PASSES_LAYOUT_SIMPLIFY_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

absl::StatusOr<bool> LayoutSimplify(Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_LAYOUT_SIMPLIFY_H_
