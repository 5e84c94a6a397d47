// Undefined behavior in one node's evaluation: an operation whose result the
// graph IR defines (the reference interpreter computes it) but a compiler or
// ONNX Runtime may choose differently, trap on, or refuse, so a difference
// there is not a bug of either side (docs/DIFFERENTIAL.md lists them):
// - integer div, mod, floordiv by zero, and INT_MIN divided by -1 (div,
//   floordiv, mod: x86 traps on all three);
// - signed integer overflow of add, sub, mul, neg, abs, reduce_sum, cumsum
//   and matmul (i32 checked exactly in i64; i64 in f64, so a result past
//   2^63 by less than f64's rounding there is not seen);
// - float -> int casts of NaN, +-Inf, or a value whose truncation the target
//   cannot hold;
// - gather indices outside [-size, size) (the IR gives 0, ONNX fails).
// Internal to the reference interpreter (interpreter.h reports the first one
// of an evaluation).
//
// Tested by compiler/reference/undefined_behavior_test.cc.
#ifndef REPROKIT_COMPILER_REFERENCE_UNDEFINED_BEHAVIOR_H_
#define REPROKIT_COMPILER_REFERENCE_UNDEFINED_BEHAVIOR_H_

#include <optional>
#include <string>

#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler::reference_internal {

// What undefined behavior evaluating `node` on `operands` (giving `result`)
// hits first, e.g. "integer division by zero (element 3: 7 / 0)"; nullopt
// when none.
std::optional<std::string> FindUndefinedBehavior(const Node& node,
                                                 absl::Span<const HostTensor> operands,
                                                 const HostTensor& result);

}  // namespace rk::compiler::reference_internal

#endif  // REPROKIT_COMPILER_REFERENCE_UNDEFINED_BEHAVIOR_H_
