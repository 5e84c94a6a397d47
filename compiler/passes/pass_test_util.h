// Helpers for the pass tests: run one pass on a graph written as text, compare
// graphs by their printed form, and compare two graphs' values under the
// reference interpreter.
//
// Used by compiler/passes/*_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_PASS_TEST_UTIL_H_
#define REPROKIT_COMPILER_PASSES_PASS_TEST_UTIL_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"
#include "compiler/passes/pass_manager.h"
#include "gtest/gtest.h"

namespace rk::compiler {

struct PassRun {
  Graph graph;
  bool changed = false;
  std::vector<PassApplication> log;
};

// Parses `text`, runs `pass` with a context made from `options`, verifies the
// result and checks that it computes exactly what the input did on random
// inputs (pass `exact = false` for value-changing rewrites).
absl::StatusOr<PassRun> RunPass(PassFn pass, std::string_view text,
                                const CompileOptions& options = {}, bool exact = true);

// Success when PrintInline(actual) equals the printed parse of `expected`
// (so `expected` may use any spacing); otherwise both texts.
::testing::AssertionResult GraphMatches(const Graph& actual, std::string_view expected);

// Deterministic inputs for `graph`'s signature: floats uniform in [-2, 2),
// integers in [-5, 5], bools 0/1.
std::vector<HostTensor> RandomInputs(const Graph& graph, uint64_t seed);

// Evaluates both graphs (native mode) on `inputs` and compares the outputs:
// bit for bit when `tolerance` is 0 (NaN equal to NaN), else
// |a - b| <= tolerance * (1 + |b|).
::testing::AssertionResult SameValues(const Graph& expected, const Graph& actual,
                                      const std::vector<HostTensor>& inputs,
                                      double tolerance = 0);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_PASS_TEST_UTIL_H_
