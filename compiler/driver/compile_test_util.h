// Helpers for the compiler's end-to-end tests: seeded inputs, comparison of
// compiled outputs with the reference interpreter.
#ifndef REPROKIT_COMPILER_DRIVER_COMPILE_TEST_UTIL_H_
#define REPROKIT_COMPILER_DRIVER_COMPILE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler {

// One input per graph input: HostTensor::Random(type, seed + index, spec).
std::vector<HostTensor> SeededInputs(const Graph& graph, uint64_t seed, const RandomSpec& spec = {});

// Largest |got - want| / (|want| + atol) over all elements; NaNs must agree.
double MaxRelativeError(const HostTensor& got, const HostTensor& want, double atol);

// Compiles `text` with `options`, runs it and the reference on the same
// inputs; returns a description of the first mismatch beyond `rtol`, or "".
absl::StatusOr<std::string> CompareWithReference(const std::string& text,
                                                 const CompileOptions& options, double rtol,
                                                 const RandomSpec& spec = {}, uint64_t seed = 7);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_DRIVER_COMPILE_TEST_UTIL_H_
