// How much an output computed in bf16/f16 may legitimately move when its
// operands are rounded differently: the accuracy rule's allowance for fused
// code (docs/ARCHITECTURE.md, "The flow of one judgement").
//
// The reference rounds every bf16/f16 value after the node that computes it;
// compiled code keeps fused intermediates in f32 and rounds at stores and
// casts. Both are correct to the precision of the computation, yet where the
// output op is sensitive to its operands (pow(a, b) moves by b*y/a per unit
// of a and by y*ln(a) per unit of b) one skipped rounding of an operand moves
// the output by more than its own half unit. The torch rule compares the
// result's error with the native reference's, and the native reference may
// have been lucky on the few elements of a small tensor.
//
// OperandRoundingRms measures that sensitivity on the fp64 run's own values:
// for every element of the output node, the sum over its distinct bf16/f16
// operands of the larger change of the node's fp64 value when that operand is
// moved by half a unit in the last place of its dtype (up or down), and
// returns the rms of that over the elements. It needs the fp64 values of the
// node's operands (EvalOptions::record_intermediates), re-evaluates only the
// one node (through PromoteToF64, so attributes that name a dtype keep their
// meaning), and is 0 when no operand is bf16/f16.
//
// Tested by repro/oracle/operand_rounding_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_OPERAND_ROUNDING_H_
#define REPROKIT_REPRO_ORACLE_OPERAND_ROUNDING_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::repro {

// Half a unit in the last place of `x` in `dtype` (bf16 or f16; subnormal
// spacing near zero); 0 for any other dtype or a non-finite x.
double HalfUlp(compiler::DType dtype, double x);

// `fp64_values`: one tensor per node of `graph`, the fp64 reference's values
// (compiler::EvalResult::values with fp64 and record_intermediates).
absl::StatusOr<double> OperandRoundingRms(const compiler::Graph& graph,
                                          absl::Span<const compiler::HostTensor> fp64_values,
                                          compiler::NodeId node);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_OPERAND_ROUNDING_H_
