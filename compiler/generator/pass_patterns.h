// Patterns the graph passes rewrite, for GeneratorOptions::pass_patterns:
// identities (neg(neg(x)), abs(abs(x)), relu(relu(x)), log(exp(x)), cast and
// layout round trips, x*1, x+0, x/1), value-changing candidates (x-x, x*x,
// x*0), repeated nodes for CSE and constant subgraphs (full op iota) for
// constant folding. Each pattern goes through the same domain guards as every
// other op, so graphs stay valid and finite. Internal to the generator.
//
// Tested by compiler/generator/generator_options_test.cc and
// compiler/passes/pipeline_property_test.cc (every optional pass applies).
#ifndef REPROKIT_COMPILER_GENERATOR_PASS_PATTERNS_H_
#define REPROKIT_COMPILER_GENERATOR_PASS_PATTERNS_H_

#include "absl/status/status.h"
#include "compiler/generator/generator_context.h"

namespace rk::compiler::generator {

// Adds one pattern over an existing value (or a new one); Skip when the
// drawn pattern does not fit.
absl::Status AddPassPattern(GenContext& ctx);

}  // namespace rk::compiler::generator

#endif  // REPROKIT_COMPILER_GENERATOR_PASS_PATTERNS_H_
