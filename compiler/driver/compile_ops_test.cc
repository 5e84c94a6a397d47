// End to end on the CPU backend: gather, conv2d, max_pool2d and avg_pool2d
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

// f32 accumulators (fast_math, low_precision) against the reference's
// double sums: conv2d's and avg_pool2d's sums round differently.
void ExpectMatches(const std::string& text) {
  for (const CompileOptions& options : OptionSets()) {
    SCOPED_TRACE(options.ToString());
    const double rtol = options.fast_math || options.low_precision ? 1e-3 : 1e-5;
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

TEST(CompileOpsTest, Conv2dStridedPaddedDilated) {
  ExpectMatches(R"(graph @g(%x: f32[2,3,9,11], %w: f32[4,3,3,2]) {
    %a = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[2,4,7,10]
    %b = conv2d(%x, %w) {dilations=[2,3], groups=1, pads=[1,2,0,1], strides=[2,1]} : f32[2,4,3,11]
    %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[2,2,2,2], strides=[3,2]} : f32[2,4,4,7]
    return %a, %b, %c
  })");
}

TEST(CompileOpsTest, Conv2dGroupedAndDepthwise) {
  ExpectMatches(R"(graph @g(%x: f32[1,6,8,8], %g: f32[4,3,3,3], %d: f32[12,1,3,3]) {
    %a = conv2d(%x, %g) {dilations=[1,1], groups=2, pads=[1,1,1,1], strides=[1,1]} : f32[1,4,8,8]
    %b = conv2d(%x, %d) {dilations=[1,1], groups=6, pads=[1,1,1,1], strides=[2,2]} : f32[1,12,4,4]
    return %a, %b
  })");
}

TEST(CompileOpsTest, Conv2dWithBiasReluAndLowPrecisionDtypes) {
  // Bias is an add on the materialized result; a transposed weight fuses
  // into the conv as strides.
  ExpectMatches(R"(graph @g(%x: bf16[1,4,6,6], %w: bf16[8,4,1,1], %b: bf16[8,1,1], %h: f16[1,2,5,5], %v: f16[3,3,2,2], %e: f64[1,1,4,4], %k: f64[1,1,3,3]) {
    %c = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : bf16[1,8,6,6]
    %a = add(%c, %b) : bf16[1,8,6,6]
    %r = relu(%a) : bf16[1,8,6,6]
    %t = transpose(%v) {perm=[1,0,2,3]} : f16[3,3,2,2]
    %s = slice(%t) {limit=[3,2,2,2], start=[0,0,0,0], stride=[1,1,1,1]} : f16[3,2,2,2]
    %f = conv2d(%h, %s) {dilations=[1,1], groups=1, pads=[1,0,0,1], strides=[1,1]} : f16[1,3,5,5]
    %d = conv2d(%e, %k) {dilations=[1,1], groups=1, pads=[1,1,1,1], strides=[1,1]} : f64[1,1,4,4]
    return %r, %f, %d
  })");
}

TEST(CompileOpsTest, Conv2dOfAComputedInputAndAnEmptyOne) {
  // exp is materialized before the conv; an input of height 0 with padding
  // gives rows of padding only.
  ExpectMatches(R"(graph @g(%x: f32[1,2,5,5], %w: f32[2,2,2,2], %z: f32[1,1,0,3], %v: f32[1,1,1,1]) {
    %e = exp(%x) : f32[1,2,5,5]
    %c = conv2d(%e, %w) {dilations=[1,1], groups=1, pads=[0,0,1,1], strides=[1,1]} : f32[1,2,5,5]
    %d = conv2d(%z, %v) {dilations=[1,1], groups=1, pads=[1,0,1,0], strides=[1,1]} : f32[1,1,2,3]
    return %c, %d
  })");
}

TEST(CompileOpsTest, Pools) {
  ExpectMatches(R"(graph @g(%x: f32[2,3,7,8], %h: bf16[1,2,5,5]) {
    %a = max_pool2d(%x) {dilations=[1,1], kernel=[3,3], pads=[1,1,1,1], strides=[2,2]} : f32[2,3,4,4]
    %b = max_pool2d(%x) {dilations=[2,1], kernel=[2,3], pads=[0,2,1,0], strides=[1,3]} : f32[2,3,6,3]
    %c = avg_pool2d(%x) {count_include_pad=false, kernel=[3,3], pads=[1,1,1,1], strides=[2,2]} : f32[2,3,4,4]
    %d = avg_pool2d(%x) {count_include_pad=true, kernel=[3,2], pads=[1,0,2,1], strides=[1,2]} : f32[2,3,8,4]
    %e = avg_pool2d(%x) {count_include_pad=false, kernel=[2,2], pads=[0,0,0,0], strides=[2,2]} : f32[2,3,3,4]
    %f = max_pool2d(%h) {dilations=[1,1], kernel=[2,2], pads=[1,1,0,0], strides=[1,1]} : bf16[1,2,5,5]
    %g = avg_pool2d(%h) {count_include_pad=false, kernel=[2,2], pads=[1,1,0,0], strides=[1,1]} : bf16[1,2,5,5]
    return %a, %b, %c, %d, %e, %f, %g
  })");
}

}  // namespace
}  // namespace rk::compiler
