// The reference interpreter: evaluates a Graph on host tensors, slowly and
// simply, as the ground truth that compiled code is judged against (the
// oracle: docs/ARCHITECTURE.md, "The flow of one judgement").
//
// Needs a verified graph (Verify in compiler/ir/verifier.h); the interpreter
// re-checks only what it must to stay memory-safe (operand order, the
// attributes it reads, the inputs' count and types).
//
// Two modes:
// - Native (default): every op computes in double (float dtypes) or int64
//   (integers and bool) and rounds its result to the node's storage dtype
//   right away (f16/bf16 round to nearest even, f32 through a float cast), as
//   hardware that stores every intermediate would. Reductions, matmul and
//   composites (gelu, softmax, log_softmax, layer_norm, rms_norm) accumulate in
//   double and round once, at the end of the op; so do conv2d and avg_pool2d.
//   One exception: layer_norm below f64 rounds its row mean to f32 before
//   subtracting it, as every f32 implementation does (with a nearly constant
//   row that rounding is amplified by 1/sqrt(eps) and dominates the error).
// - fp64 (EvalOptions::fp64): the graph is first promoted with PromoteToF64
//   (promote.h): every float input, node, constant and cast target becomes
//   f64; integers and bool stay as they are. Float inputs are converted to f64
//   and float outputs come back as f64.
//
// Semantics beyond the obvious:
// - Integers (i32, i64) wrap modulo 2^bits on overflow (add, sub, mul, neg,
//   abs, reduce_sum, matmul; abs(INT_MIN) == INT_MIN). Division truncates
//   toward zero; x / 0 == 0 (INT_MIN / -1 wraps to INT_MIN).
// - mod and floordiv floor like Python's % and //: the remainder has the
//   divisor's sign. Integers: x mod 0 == 0, x floordiv 0 == 0, INT_MIN
//   floordiv -1 wraps to INT_MIN. Floats as numpy's mod and floor_divide:
//   the remainder from fmod (so y == 0 gives NaN), the quotient
//   (x - remainder) / y snapped to the nearest integer (y == 0 gives x / y).
// - cumsum sums in double (int64, wrapping, for integers) along its axis in
//   scan order (from the end with reverse) and rounds each result once; an
//   exclusive scan starts from 0. pad fills with its value converted to the
//   dtype as full's value is.
// - round is half to even (round(2.5) == 2, round(-0.5) == -0); clip is
//   min(max(x, min), max) with each present bound converted to the dtype as a
//   cast would (so a NaN x stays NaN).
// - NaN: maximum/minimum, reduce_max/reduce_min propagate NaN; comparisons
//   with NaN are false except ne, which is true; argmax treats NaN as the
//   largest value and returns the first index of the maximum.
// - cast: float -> int truncates toward zero and wraps modulo 2^bits; NaN and
//   +-Inf become 0. float -> bool is x != 0 (NaN -> true). Integer -> float
//   rounds to nearest even (once, except i64 beyond 2^53 to f16/bf16, which
//   goes through double).
// - gather: a negative index counts from the end of the axis (adds its
//   size); an index still outside [0, size) gives zero elements (0, +0.0,
//   false) instead of reading anything.
// - conv2d, max_pool2d, avg_pool2d: padded taps are skipped; max_pool2d
//   propagates NaN and gives -inf for a window of padding only; avg_pool2d
//   without count_include_pad divides by the real taps (0 / 0 = NaN for
//   none).
// - Reducing an axis of size 0: sum 0, mean NaN (InferType rejects max, min
//   and argmax there).
// - relu(-0) = +0 and relu(NaN) = NaN; maximum(-0, +0) = +0, minimum = -0.
// - Outputs may share storage with inputs (HostTensor copies share bytes).
// - Several of the rules above define what C, LLVM and ONNX leave undefined
//   (x / 0, INT_MIN / -1, signed overflow, casts of NaN, out-of-range gather
//   indices): every evaluation reports the first one it meets
//   (EvalResult::undefined), so the oracle does not trust such a value.
//
// Tested by compiler/reference/ops_test.cc (every op, hand-computed values),
// compiler/reference/interpreter_test.cc (rounding, fp64 mode, intermediates,
// input checks) and compiler/reference/examples_test.cc (examples/*.rk).
#ifndef REPROKIT_COMPILER_REFERENCE_INTERPRETER_H_
#define REPROKIT_COMPILER_REFERENCE_INTERPRETER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler {

struct EvalOptions {
  // Promote every float computation to f64 (the oracle's fp64 reference).
  bool fp64 = false;
  // Keep the value of every node (EvalResult::values); otherwise values are
  // released as soon as their last user has run.
  bool record_intermediates = false;
};

// The first operation of an evaluation whose result the IR defines but an
// implementation may choose (undefined_behavior.h: integer division by zero,
// signed overflow, float -> int casts out of range, out-of-range gather
// indices): the values were still computed by the rules above, but no
// compiler can be judged against them.
struct UndefinedBehavior {
  NodeId node;
  std::string node_name;  // display name, without '%'
  std::string what;       // e.g. "integer division by zero (element 3: 7 / 0)"

  // "undefined behavior at %node: what"
  std::string Message() const;
};

struct EvalResult {
  // One tensor per graph output, in the graph's output order.
  std::vector<HostTensor> outputs;
  // With record_intermediates, one tensor per node, indexed by NodeId value
  // (in fp64 mode, the promoted graph's values); otherwise empty.
  std::vector<HostTensor> values;
  // The first undefined behavior met, in node order.
  std::optional<UndefinedBehavior> undefined;
};

// Evaluates `graph` on `inputs` (one per graph input, in signature order, of
// exactly the declared types; InvalidArgument naming the input otherwise).
absl::StatusOr<EvalResult> Evaluate(const Graph& graph, absl::Span<const HostTensor> inputs,
                                    const EvalOptions& options = {});

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_REFERENCE_INTERPRETER_H_
