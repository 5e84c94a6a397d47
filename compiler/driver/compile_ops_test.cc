// End to end on the CPU backend: gather (and later conv2d and the pools)
// compiled and run against the reference interpreter, under the option sets
// that change their kernels (opt_level=0, fast_math, low_precision, threads,
// tree sums).
#include <string>
#include <vector>

#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

// Integer inputs uniform in [-10, 10]: gathered axes below are 4 to 9 long,
// so indices are in range, negative and out of range.
const RandomSpec kSpec = {RandomSpec::Distribution::kUniform, -10, 10};

std::vector<CompileOptions> OptionSets() {
  std::vector<CompileOptions> sets(6);
  sets[1].opt_level = 0;
  sets[2].fast_math = true;
  sets[3].low_precision = true;
  sets[4].threads = 4;
  sets[5].reduce_order = ReduceOrder::kTree;
  return sets;
}

void ExpectMatches(const std::string& text, double rtol = 1e-5) {
  for (const CompileOptions& options : OptionSets()) {
    SCOPED_TRACE(options.ToString());
    absl::StatusOr<std::string> mismatch = CompareWithReference(text, options, rtol, kSpec);
    ASSERT_TRUE(mismatch.ok()) << mismatch.status();
    EXPECT_EQ(*mismatch, "");
  }
}

TEST(CompileOpsTest, GatherEmbeddingLookup) {
  ExpectMatches(R"(graph @g(%t: f32[8,64], %i: i64[2,5]) {
    %y = gather(%t, %i) {axis=0} : f32[2,5,64]
    return %y
  })");
}

TEST(CompileOpsTest, GatherInnerAxisScalarIndexAndOtherDtypes) {
  ExpectMatches(R"(graph @g(%x: f32[3,7,4], %i: i32[2,3], %s: i64[], %b: bf16[6,4], %n: i64[8]) {
    %a = gather(%x, %i) {axis=1} : f32[3,2,3,4]
    %c = gather(%x, %s) {axis=-1} : f32[3,7]
    %d = gather(%b, %i) {axis=0} : bf16[2,3,4]
    %e = gather(%n, %i) {axis=0} : i64[2,3]
    return %a, %c, %d, %e
  })");
}

TEST(CompileOpsTest, GatherFusedWithProducersAndConsumers) {
  // exp runs only at gathered rows; the gather feeds a reduction's prologue
  // and a reshape; the indices come from a computation (argmax).
  ExpectMatches(R"(graph @g(%t: f32[9,16], %i: i32[4], %x: f32[4,9]) {
    %e = exp(%t) : f32[9,16]
    %g = gather(%e, %i) {axis=0} : f32[4,16]
    %s = reduce_sum(%g) {axes=[1], keepdim=false} : f32[4]
    %r = reshape(%g) {shape=[8,8]} : f32[8,8]
    %k = argmax(%x) {axis=1, keepdim=false} : i64[4]
    %h = gather(%t, %k) {axis=0} : f32[4,16]
    return %s, %r, %h
  })");
}

TEST(CompileOpsTest, GatherFromAnEmptyAxisReadsNothing) {
  ExpectMatches(R"(graph @g(%t: f32[0,3], %i: i32[4]) {
    %y = gather(%t, %i) {axis=0} : f32[4,3]
    return %y
  })");
}

}  // namespace
}  // namespace rk::compiler
