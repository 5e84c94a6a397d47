// Deterministic inputs for a graph from one seed: input i (signature order) is
// HostTensor::Random(type_i, SeedForInput(seed, i), spec) with the default
// uniform [-1, 1) spec (integers in [-8, 8], bools 0/1; an integer input that
// is a gather's indices, directly or through casts and reshapes, in [0, n) for
// the smallest gathered axis n). Every tool that runs a
// graph "on seeded inputs" (eval, compile, check, capture, bundles' seeded
// recipe) uses this, so the same seed means the same data everywhere.
//
// Tested by compiler/ir/seeded_inputs_test.cc.
#ifndef REPROKIT_COMPILER_IR_SEEDED_INPUTS_H_
#define REPROKIT_COMPILER_IR_SEEDED_INPUTS_H_

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler {

// The per-input seed: a mix of the run seed and the input's position.
uint64_t SeedForInput(uint64_t seed, int input_index);
// The spec used for an input of `dtype`.
RandomSpec DefaultInputSpec(DType dtype);
// The spec of each input of `graph` (signature order): DefaultInputSpec, or
// [0, n - 1] for an integer input that gathers take as indices.
std::vector<RandomSpec> SeededInputSpecs(const Graph& graph);
std::vector<HostTensor> SeededInputs(const Graph& graph, uint64_t seed);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_SEEDED_INPUTS_H_
