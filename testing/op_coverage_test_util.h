// The checks behind testing/op_coverage_test.cc: for one op of
// compiler/ir/ops.def, whether every piece an op needs (docs/COMPILER.md,
// "Adding an op") exists, by running each on the op's sample graph
// (op_samples_test_util.h): shape inference, the reference interpreter in
// native dtypes and fp64, the graph pipeline, the CPU backend, the CUDA code
// generator (PTX only: no GPU needed), the fuzz generator and the minifier's
// simplify_op.
//
// The tables and the generator / simplification hooks come in as arguments,
// so a test can hand in a deliberately incomplete set and see the checks fail.
//
// Tested by testing/op_coverage_test.cc.
#ifndef REPROKIT_TESTING_OP_COVERAGE_TEST_UTIL_H_
#define REPROKIT_TESTING_OP_COVERAGE_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/generator/generator.h"
#include "compiler/ir/op.h"
#include "minifier/reductions/simplify_op.h"
#include "testing/op_samples_test_util.h"

namespace rk::op_coverage {

struct CoverageTables {
  std::vector<OpSample> samples;
  std::vector<Exemption> exemptions;
  // The generator whose support for an op is checked (compiler::generator::Generate).
  std::function<absl::StatusOr<compiler::generator::GeneratedGraph>(uint64_t, const compiler::generator::GeneratorOptions&)>
      generate;
  // What the minifier offers per op (minifier::SimplificationsOf).
  std::function<std::vector<minifier::OpSimplification>(compiler::Op)> simplifications;
};

// The real tables and hooks.
CoverageTables RealTables();

// Everything wrong with `op`, one line each: no sample, a sample without the
// op, a piece missing without an exemption, an exemption that no longer
// holds. Empty when the op is complete.
std::vector<std::string> CheckOp(compiler::Op op, const CoverageTables& tables);

// Table-level problems: samples of unknown ops or listed twice, exemptions
// without a reason or listed twice.
std::vector<std::string> CheckTables(const CoverageTables& tables);

}  // namespace rk::op_coverage

#endif  // REPROKIT_TESTING_OP_COVERAGE_TEST_UTIL_H_
