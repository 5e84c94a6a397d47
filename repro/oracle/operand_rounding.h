// How much an output computed in bf16/f16 may legitimately move when the
// values it is computed from are rounded differently: the accuracy rule's
// allowance for fused code (docs/ARCHITECTURE.md, "The flow of one judgement").
//
// The reference rounds every bf16/f16 value after the node that computes it;
// compiled code keeps fused intermediates in f32 and rounds at stores and
// casts. Both are correct to the precision of the computation, yet where the
// output is sensitive to an intermediate (pow(a, b) moves by b*y/a per unit of
// a; sin(x) of a large x by cos(x) per unit of x, through any number of later
// ops) one rounding the fused code skipped moves the output by more than its
// own half unit. The torch rule compares the result's error with the native
// reference's, and the native reference may have been lucky on the few
// elements of a small tensor.
//
// OperandRoundingRms measures that on the fp64 run's own values: for each of
// the nearest kMaxRoundedNodes bf16/f16 compute nodes the output node is
// computed from (graph inputs and sources excluded: both sides hold the same
// values there; the output node excluded: its own rounding is the rule's
// rounding floor), the change of the output node's fp64 value when that node's
// value is rounded to its dtype and everything after it is recomputed in fp64
// (one evaluation of the slice between them, through PromoteToF64). Per
// element the changes add as independent errors (root sum of squares); the
// result is the rms of that over the elements, 0 when there is no such node.
// A value its dtype holds exactly rounds to itself and adds nothing, so an
// exact operand of floor or a comparison never inflates the allowance.
//
// Tested by repro/oracle/operand_rounding_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_OPERAND_ROUNDING_H_
#define REPROKIT_REPRO_ORACLE_OPERAND_ROUNDING_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::repro {

inline constexpr int kMaxRoundedNodes = 16;

// `fp64_values`: one tensor per node of `graph`, the fp64 reference's values
// (compiler::EvalResult::values with fp64 and record_intermediates).
absl::StatusOr<double> OperandRoundingRms(const compiler::Graph& graph,
                                          absl::Span<const compiler::HostTensor> fp64_values,
                                          compiler::NodeId node);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_OPERAND_ROUNDING_H_
