// Corner cases for the IR's own property tests (GeneratorOptions::
// ir_corner_cases): literals and attribute values whose text form is exact but
// unusual (signed zeros, infinities, NaNs, subnormals, the largest finite
// values, random bit patterns, extreme integers) and names that need quoting
// or look like other tokens. They only rewrite values and names after a
// graph's structure is chosen, so a graph keeps its seed's shape; the numeric
// guarantees of the generator do not hold for such graphs. Internal to the
// generator.
//
// Tested by compiler/generator/generator_options_test.cc and, through the
// round trips they feed, compiler/generator/ir_round_trip_test.cc.
#ifndef REPROKIT_COMPILER_GENERATOR_CORNER_VALUES_H_
#define REPROKIT_COMPILER_GENERATOR_CORNER_VALUES_H_

#include <string>

#include "compiler/generator/rng.h"
#include "compiler/ir/attributes.h"
#include "compiler/ir/op.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler::generator {

// A value whose text form is exact in every float dtype (after rounding to it):
// +-inf, NaN of either sign, +-0, subnormals, 65504, 3e38, 1e300, ...
double CornerValue(Rng& rng);

// A literal of `type` that round-trips bit for bit through the text format:
// a third of the elements corner values, the rest random bit patterns (NaNs
// canonical), integers over their whole range.
HostTensor CornerLiteral(const TensorType& type, Rng& rng);

// Gives the attributes of a node of `op` with result `type` corner values
// (about half the time): a constant's literal, full's value, a norm's eps.
void AddCornerValues(Op op, const TensorType& type, Attributes& attrs, Rng& rng);

// Graph and node names that exercise quoting in the text format.
class CornerNames {
 public:
  explicit CornerNames(Rng& rng) : rng_(rng) {}
  // One of "main", "g.v2", "with space", "", "x\"q", ...
  std::string GraphName();
  // A fresh name with probability `p`, else "" (unnamed).
  std::string NodeName(double p);

 private:
  Rng& rng_;
  int counter_ = 0;
};

}  // namespace rk::compiler::generator

#endif  // REPROKIT_COMPILER_GENERATOR_CORNER_VALUES_H_
