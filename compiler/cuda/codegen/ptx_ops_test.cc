// PTX for gather (part of //compiler/cuda/codegen:ptx_compiler_test): the
// kernel forms the new ops take on the GPU, checked on the PTX text.
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

}  // namespace
}  // namespace rk::compiler::cuda
