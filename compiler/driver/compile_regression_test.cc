// Compiler bugs found by the fuzzer, each with the minimized graph that showed
// it. Every case is compared with the reference interpreter.
#include <string>

#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

void ExpectMatchesReference(const std::string& text, int opt_level) {
  CompileOptions options;
  options.opt_level = opt_level;
  absl::StatusOr<std::string> mismatch = CompareWithReference(text, options, 1e-6);
  ASSERT_TRUE(mismatch.ok()) << mismatch.status();
  EXPECT_EQ(*mismatch, "") << text;
}

// iota with a negative axis was indexed without normalizing the axis: wrong
// values for -1, an out-of-range index (a crash while compiling) for -2.
TEST(CompileRegressionTest, IotaNegativeAxis) {
  for (int opt : {0, 2}) {
    ExpectMatchesReference(R"(graph @fuzz() {
  %0 = iota() {axis=-1, dtype=f32, shape=[4,3]} : f32[4,3]
  return %0
})",
                           opt);
    ExpectMatchesReference(R"(graph @fuzz() {
  %0 = iota() {axis=-2, dtype=i64, shape=[7,6]} : i64[7,6]
  return %0
})",
                           opt);
  }
}

// A reduction over a size-1 axis feeding an elementwise op with its input
// made LLVM's InstCombine abort ("did not reach a fixpoint") at O2.
TEST(CompileRegressionTest, ReductionOverUnitAxisWithElementwiseUser) {
  ExpectMatchesReference(R"(graph @fuzz(%v3: f32[1,2]) {
  %1 = reduce_sum(%v3) {axes=[0], keepdim=true} : f32[1,2]
  %2 = sub(%v3, %1) : f32[1,2]
  return %2
})",
                         2);
  ExpectMatchesReference(R"(graph @fuzz(%v: f32[2,1,1,1]) {
  %1 = reduce_mean(%v) {axes=[3], keepdim=true} : f32[2,1,1,1]
  %2 = sub(%v, %1) : f32[2,1,1,1]
  return %2
})",
                         2);
}

}  // namespace
}  // namespace rk::compiler
