// decompose: lowers the composite ops into primitive ones, so that later
// passes and code generation only see primitives:
//   softmax(x)     = e / reduce_sum(e), e = exp(x - reduce_max(x))
//   log_softmax(x) = d - log(reduce_sum(exp(d))), d = x - reduce_max(x)
//   layer_norm     = (x - mean) * rsqrt(mean((x - mean)^2) + eps) * gamma + beta
//   rms_norm       = x * rsqrt(mean(x^2) + eps) * gamma
//   gelu(x)        = 0.5 * x * (1 + erf(x * 1/sqrt(2)))
// Reductions run over the op's axis with keepdim, so results broadcast back.
// f16/bf16 composites compute in f32 and cast back (one rounding, as for any
// single op), with or without options.low_precision.
// Required lowering: never numbered, never disabled.
//
// Tested by compiler/passes/decompose_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_DECOMPOSE_H_
#define REPROKIT_COMPILER_PASSES_DECOMPOSE_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

absl::StatusOr<bool> Decompose(Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_DECOMPOSE_H_
