// The precision an output was computed in, which the accuracy rule judges it
// by: the lowest float precision on any path from the graph's inputs to the
// output, not only the output's own dtype.
//
// The numerics contract (docs/ARCHITECTURE.md, "The flow of one judgement"): the
// reference rounds a bf16/f16 value after every node, while compiled code
// computes it in f32 and rounds at stores and casts (fused intermediates stay
// wider); both are correct to the precision of the computation. So the error
// expected of `cast(erf(reduce_mean(x: bf16))) {dtype=f64}` is at least that
// of bf16 rounding (AccuracyOptions::computed_in), however lucky the native
// reference's own rounding was on a few elements.
//
// Tested by repro/oracle/computation_precision_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_COMPUTATION_PRECISION_H_
#define REPROKIT_REPRO_ORACLE_COMPUTATION_PRECISION_H_

#include <vector>

#include "compiler/ir/graph.h"

namespace rk::repro {

// For every output of `graph`, in order: the lowest-precision float dtype on
// any path to it (the output itself included), bf16 < f16 < f32 < f64; kF64
// when no float value lies on the path.
std::vector<compiler::DType> OutputPrecisions(const compiler::Graph& graph);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_COMPUTATION_PRECISION_H_
