// PTX for gather, conv2d and the pools (part of
// //compiler/cuda/codegen:ptx_compiler_test): the kernel forms these ops take
// on the GPU, checked on the PTX text.
#include "absl/strings/match.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

TEST(PtxOpsTest, GatherIsAGridStrideKernelWithAClampedLoad) {
  PtxProgram p = Ptx(R"(graph @g(%t: f32[50257,64], %i: i64[4,128]) {
    %y = gather(%t, %i) {axis=0} : f32[4,128,64]
    return %y
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kGridStride);
  // The index is read, compared with the bounds and the row position
  // selected before the table is read.
  EXPECT_TRUE(absl::StrContains(p.ptx, "ld.global.nc.u64") ||
              absl::StrContains(p.ptx, "ld.global.nc.v2.u64") ||
              absl::StrContains(p.ptx, "ld.global.nc.b64"))
      << p.ptx;
  EXPECT_TRUE(absl::StrContains(p.ptx, "selp")) << p.ptx;
  EXPECT_FALSE(absl::StrContains(p.ptx, ".extern"));
}

TEST(PtxOpsTest, GatherFusesIntoAReductionPrologue) {
  PtxProgram p = Ptx(R"(graph @g(%t: f32[100,256], %i: i32[64]) {
    %e = exp(%t) : f32[100,256]
    %g = gather(%e, %i) {axis=0} : f32[64,256]
    %s = reduce_sum(%g) {axes=[1], keepdim=false} : f32[64]
    return %s
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kRowReduction);
}

TEST(PtxOpsTest, ConvWithManyTapsIsABlockPerOutputReduction) {
  // 64 channels x 3 x 3 = 576 taps per output: a row reduction.
  PtxProgram p = Ptx(R"(graph @g(%x: f32[1,64,8,8], %w: f32[16,64,3,3]) {
    %y = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[1,1,1,1], strides=[1,1]} : f32[1,16,8,8]
    return %y
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kRowReduction);
  EXPECT_EQ(p.launches[0].work, 16 * 8 * 8);
  EXPECT_TRUE(absl::StrContains(p.ptx, "selp")) << p.ptx;
}

TEST(PtxOpsTest, SmallWindowsRunAThreadPerOutput) {
  // Depthwise 3x3 (9 taps), pools of 4 and 9 taps, low-precision dtypes,
  // bias and relu as their own kernel.
  PtxProgram p = Ptx(R"(graph @g(%x: bf16[2,8,16,16], %w: bf16[8,1,3,3], %b: bf16[8,1,1]) {
    %c = conv2d(%x, %w) {dilations=[1,1], groups=8, pads=[1,1,1,1], strides=[1,1]} : bf16[2,8,16,16]
    %a = add(%c, %b) : bf16[2,8,16,16]
    %r = relu(%a) : bf16[2,8,16,16]
    %m = max_pool2d(%r) {dilations=[1,1], kernel=[2,2], pads=[0,0,0,0], strides=[2,2]} : bf16[2,8,8,8]
    %v = avg_pool2d(%m) {count_include_pad=false, kernel=[3,3], pads=[1,1,1,1], strides=[1,1]} : bf16[2,8,8,8]
    return %v
  })");
  ASSERT_EQ(p.launches.size(), 4u);
  for (const auto& launch : p.launches) EXPECT_EQ(launch.form, KernelForm::kGridStride);
  EXPECT_EQ(p.launches[0].work, 2 * 8 * 16 * 16 / 8);  // eight consecutive bf16 outputs a thread
  EXPECT_TRUE(absl::StrContains(p.ptx, "max.NaN.f32") || absl::StrContains(p.ptx, "max.f32"))
      << p.ptx;
}

TEST(PtxOpsTest, WindowFaultsReachTheKernel) {
  const char* text = R"(graph @g(%x: f32[1,2,6,6], %w: f32[2,2,3,3]) {
    %y = conv2d(%x, %w) {dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]} : f32[1,2,4,4]
    return %y
  })";
  CompileOptions faulty;
  faulty.faults = {"conv2d:runtime_crash"};
  EXPECT_NE(Ptx(text).ptx, Ptx(text, faulty).ptx);
  faulty.faults = {"conv2d:accuracy"};
  EXPECT_NE(Ptx(text).ptx, Ptx(text, faulty).ptx);
}

}  // namespace
}  // namespace rk::compiler::cuda
