// The data the op coverage test (testing/op_coverage_test.cc) checks every op
// of compiler/ir/ops.def against: one small valid sample graph per op, and the
// pieces some ops legitimately lack, each with the reason.
//
// Adding an op (docs/COMPILER.md, "Adding an op") adds its sample here; the
// test fails for an op without one. An exemption is checked too: the piece it
// excuses must really be missing (a stale exemption fails the test).
//
// Tested by testing/op_coverage_test.cc.
#ifndef REPROKIT_TESTING_OP_SAMPLES_TEST_UTIL_H_
#define REPROKIT_TESTING_OP_SAMPLES_TEST_UTIL_H_

#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/ir/tensor.h"

namespace rk::op_coverage {

// What an op needs, in the order docs/COMPILER.md lists the files.
enum class Piece {
  kShapeInference,  // its sample parses: InferType accepts it and agrees with the text
  kReference,       // Evaluate in native dtypes and, after PromoteToF64, in f64; they agree
  kReachesKernels,  // it survives the graph pipeline into fusion and kernel IR
  kCpu,             // device=cpu compiles it to at least one kernel and matches the reference
  kGpu,             // kernel IR -> PTX, at least one kernel, no unresolved call
  kGenerator,       // the fuzz generator emits it, with a value range that holds
  kMinifier,        // simplify_op offers a rewrite for it that shrinks its sample
};
inline constexpr Piece kAllPieces[] = {
    Piece::kShapeInference, Piece::kReference, Piece::kReachesKernels, Piece::kCpu,
    Piece::kGpu,            Piece::kGenerator, Piece::kMinifier,
};
std::string_view PieceName(Piece piece);

struct OpSample {
  std::string op;    // the op's text name
  std::string text;  // a graph with at least one node of the op
  // Every float input's values; the default keeps signs mixed so that, e.g.,
  // a missing abs or relu case that emits the identity shows.
  compiler::RandomSpec inputs = {compiler::RandomSpec::Distribution::kUniform, -2.0, 2.0};
};

struct Exemption {
  compiler::Op op;
  Piece piece;
  std::string reason;
};

std::vector<OpSample> OpSamples();
std::vector<Exemption> OpExemptions();

}  // namespace rk::op_coverage

#endif  // REPROKIT_TESTING_OP_SAMPLES_TEST_UTIL_H_
