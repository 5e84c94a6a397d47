// Deterministic inputs for a graph from one seed: input i (signature order) is
// HostTensor::Random(type_i, SeedForInput(seed, i), spec) with the default
// uniform [-1, 1) spec (integers in [-8, 8], bools 0/1). Every tool that runs a
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
std::vector<HostTensor> SeededInputs(const Graph& graph, uint64_t seed);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_SEEDED_INPUTS_H_
