// Value ranges: conservative bounds on every element of a value, propagated
// op by op, so the generator can keep each op inside its domain (no log of a
// negative, no division near zero, no exp overflow) and the fp64 reference
// stays finite. Bounds hold for real arithmetic and are widened a little so
// that rounding in f16/bf16/f32 cannot step outside them.
//
// Also "exactness": whether a correct compiler must produce bitwise the same
// value as the reference interpreter (inputs, layout ops, neg/abs/relu,
// max/min, selects, casts, integer arithmetic, ... of exact operands). Only
// exact values feed discontinuous ops (comparisons, argmax, float -> int/bool
// casts), so a last-bit difference in, say, exp can never flip a comparison
// and look like a miscompile.
//
// Tested by compiler/generator/value_range_test.cc.
#ifndef REPROKIT_COMPILER_GENERATOR_VALUE_RANGE_H_
#define REPROKIT_COMPILER_GENERATOR_VALUE_RANGE_H_

#include <vector>

#include "absl/types/span.h"
#include "compiler/ir/attributes.h"
#include "compiler/ir/op.h"
#include "compiler/ir/shape.h"

namespace rk::compiler::generator {

struct ValueRange {
  double lo = 0;
  double hi = 0;
  double MaxAbs() const;
  bool Contains(double v) const { return lo <= v && v <= hi; }
};

// Facts about one value known to the generator.
struct ValueFacts {
  compiler::TensorType type;
  ValueRange range;
  bool exact = true;
};

// The range of `op`'s result given its operands' facts, its attributes and
// its (already inferred) result type. Domain preconditions are the caller's:
// see OperandDomainOk.
ValueRange InferRange(compiler::Op op, absl::Span<const ValueFacts> operands,
                      const compiler::Attributes& attrs, const compiler::TensorType& result);

// The same before it is fitted to an integer result's dtype: an integer op
// whose raw range leaves [-kMaxIntMagnitude, kMaxIntMagnitude] could
// overflow (signed overflow is undefined behavior: docs/DIFFERENTIAL.md).
ValueRange InferRawRange(compiler::Op op, absl::Span<const ValueFacts> operands,
                         const compiler::Attributes& attrs, const compiler::TensorType& result);

// Whether the result of `op` is exact given its operands.
bool InferExact(compiler::Op op, absl::Span<const ValueFacts> operands,
                const compiler::TensorType& result);

// Whether operand `index` of `op` is inside the op's safe domain (for the
// generator: positive logs, divisors away from zero, bounded exp arguments,
// exact inputs to discontinuous ops, integer divisors never 0 or -1 (so
// neither x / 0 nor INT_MIN / -1 can happen), ...).
bool OperandDomainOk(compiler::Op op, int index, const ValueFacts& operand,
                     const compiler::TensorType& result);

// Largest magnitude a float value may have anywhere in a generated graph
// (well inside f16's range, so narrowing casts never overflow).
inline constexpr double kMaxMagnitude = 1000.0;
// Bound on exp arguments (exp(6) ~ 403).
inline constexpr double kMaxExpArgument = 6.0;
// Largest magnitude an integer value may have: far from i32's limits, so no
// add, mul, sum or matmul of guarded operands overflows.
inline constexpr double kMaxIntMagnitude = 1 << 30;
// Smallest magnitude of log/sqrt/rsqrt/pow/reciprocal/div operands.
inline constexpr double kMinPositive = 0.1;

// Smallest magnitude of a float divisor of mod (kMinPositive) or floordiv
// (1, so that a quotient stays within kMaxMagnitude).
double MinDivisor(compiler::Op op);

}  // namespace rk::compiler::generator

#endif  // REPROKIT_COMPILER_GENERATOR_VALUE_RANGE_H_
