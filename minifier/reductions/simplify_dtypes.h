// simplify_dtypes: move f16 and bf16 to f32.
// One target per low-precision dtype present; a candidate rewrites that dtype
// to f32 everywhere: input types and values, cast/full/iota dtypes and
// literal constants, every other type re-inferred.
//
// Tested by minifier/reductions/simplify_dtypes_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_DTYPES_H_
#define REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_DTYPES_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan SimplifyDtypes(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_SIMPLIFY_DTYPES_H_
