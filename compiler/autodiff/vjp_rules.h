// The gradient rules of vjp.cc's table, one function per op (or per family
// sharing a formula), grouped by file: vjp_elementwise.cc (unary, binary,
// where, cast), vjp_reduce.cc (reductions, cumsum), vjp_layout.cc (reshape to
// pad), vjp_contract.cc (matmul, gather), vjp_window.cc (conv2d, pools),
// vjp_composite.cc (gelu, softmax, log_softmax, layer_norm, rms_norm).
// Internal to compiler/autodiff; the contract is vjp.h's VjpRule.
//
// Tested by compiler/autodiff/gradient_check_test.cc.
#ifndef REPROKIT_COMPILER_AUTODIFF_VJP_RULES_H_
#define REPROKIT_COMPILER_AUTODIFF_VJP_RULES_H_

#include "compiler/autodiff/vjp.h"

namespace rk::compiler::autodiff {

absl::StatusOr<Grads> UnaryVjp(GradBuilder& gb, const VjpArgs& a);
absl::StatusOr<Grads> BinaryVjp(GradBuilder& gb, const VjpArgs& a);
absl::StatusOr<Grads> WhereVjp(GradBuilder& gb, const VjpArgs& a);
absl::StatusOr<Grads> CastVjp(GradBuilder& gb, const VjpArgs& a);

absl::StatusOr<Grads> ReduceVjp(GradBuilder& gb, const VjpArgs& a);
absl::StatusOr<Grads> CumsumVjp(GradBuilder& gb, const VjpArgs& a);

absl::StatusOr<Grads> LayoutVjp(GradBuilder& gb, const VjpArgs& a);

absl::StatusOr<Grads> MatmulVjp(GradBuilder& gb, const VjpArgs& a);
absl::StatusOr<Grads> GatherVjp(GradBuilder& gb, const VjpArgs& a);

absl::StatusOr<Grads> Conv2dVjp(GradBuilder& gb, const VjpArgs& a);
absl::StatusOr<Grads> PoolVjp(GradBuilder& gb, const VjpArgs& a);

absl::StatusOr<Grads> CompositeVjp(GradBuilder& gb, const VjpArgs& a);

}  // namespace rk::compiler::autodiff

#endif  // REPROKIT_COMPILER_AUTODIFF_VJP_RULES_H_
