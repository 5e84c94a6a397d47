// Thread rows (planning/thread_rows.h; part of
// //compiler/cuda/codegen:ptx_compiler_test): which row reductions run a
// thread per row, and the PTX they get. Checked on launches and PTX text; the
// values are judged on a GPU by compiler/tests/cuda_thread_rows_test.cc.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "compiler/cuda/planning/thread_rows.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

// conv2d of dtype[1,cin,size,size]; pad -1: kernel / 2 on every side.
std::string Conv(const std::string& dtype, int cin, int size, int cout, int kernel, int stride,
                 int pad = -1) {
  if (pad < 0) pad = kernel / 2;
  const int out = (size + 2 * pad - kernel) / stride + 1;
  return absl::StrCat("graph @g(%x: ", dtype, "[1,", cin, ",", size, ",", size, "], %w: ", dtype,
                      "[", cout, ",", cin, ",", kernel, ",", kernel, "]) {\n  %y = conv2d(%x, %w) ",
                      "{dilations=[1,1], groups=1, pads=[", pad, ",", pad, ",", pad, ",", pad,
                      "], strides=[", stride, ",", stride, "]} : ", dtype, "[1,", cout, ",", out,
                      ",", out, "]\n  return %y\n}");
}

TEST(PtxThreadRowsTest, OffUnlessAskedFor) {
  const std::string text = Conv("f32", 64, 56, 64, 3, 1);
  for (const char* value : {"", "0"}) {
    SCOPED_TRACE(value);
    EnvOverride set("REPROKIT_CUDA_THREAD_ROWS", value);
    PtxProgram p = Ptx(text);
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_NE(p.launches[0].block[0], static_cast<uint32_t>(kThreadRowBlockThreads));
    EXPECT_NE(p.launches[0].form, KernelForm::kGridStride);
  }
}

TEST(PtxThreadRowsTest, ResNetConvolutionsRunAThreadPerOutput) {
  EnvOverride on("REPROKIT_CUDA_THREAD_ROWS", "1");
  // ResNet-18's layer1 3x3, its stride-2 3x3 into layer2, its 1x1
  // downsample and its 7x7 stem: consecutive outputs read consecutive
  // inputs and one weight.
  struct Case {
    int cin, size, cout, kernel, stride;
  };
  for (const Case& c : {Case{64, 56, 64, 3, 1}, Case{64, 56, 128, 3, 2}, Case{64, 56, 128, 1, 2},
                        Case{3, 224, 64, 7, 2}, Case{256, 14, 256, 3, 1}}) {
    const std::string text = Conv("f32", c.cin, c.size, c.cout, c.kernel, c.stride);
    SCOPED_TRACE(text);
    PtxProgram p = Ptx(text);
    ASSERT_EQ(p.launches.size(), 1u);
    const int out = (c.size + 2 * (c.kernel / 2) - c.kernel) / c.stride + 1;
    EXPECT_EQ(p.launches[0].form, KernelForm::kGridStride);
    EXPECT_EQ(p.launches[0].work, int64_t{c.cout} * out * out);  // one output a thread
    EXPECT_EQ(p.launches[0].block[0], static_cast<uint32_t>(kThreadRowBlockThreads));
    EXPECT_TRUE(absl::StrContains(p.ptx, absl::StrCat(".maxntid ", kThreadRowBlockThreads, ", 1, 1")))
        << p.ptx.substr(0, 2000);
    EXPECT_EQ(Count(p.ptx, "shfl.sync"), 0);
    EXPECT_EQ(Count(p.ptx, "bar.sync"), 0);
    // The window's loops are unrolled: every tap of a channel (all of
    // them for the 1x1) is its own product in straight-line code.
    EXPECT_GE(Count(p.ptx, "mul.rn.f64"), c.kernel * c.kernel) << p.ptx;
  }
}

TEST(PtxThreadRowsTest, LowPrecisionConvolutionsToo) {
  EnvOverride on("REPROKIT_CUDA_THREAD_ROWS", "1");
  for (const char* dtype : {"bf16", "f16"}) {
    PtxProgram p = Ptx(Conv(dtype, 128, 28, 128, 3, 1));
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].form, KernelForm::kGridStride) << dtype;
    EXPECT_EQ(p.launches[0].work, 128 * 28 * 28) << dtype;
  }
}

TEST(PtxThreadRowsTest, ColumnSumsRunAThreadPerColumn) {
  EnvOverride on("REPROKIT_CUDA_THREAD_ROWS", "1");
  PtxProgram p = Ptx(R"(graph @g(%x: f32[64,262144]) {
    %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[262144]
    return %s
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kGridStride);
  EXPECT_EQ(p.launches[0].work, 262144);
  EXPECT_EQ(Count(p.ptx, "shfl.sync"), 0);
}

TEST(PtxThreadRowsTest, ContiguousRowsKeepTheRowForms) {
  EnvOverride on("REPROKIT_CUDA_THREAD_ROWS", "1");
  // A softmax row is contiguous: a warp per row reads it in whole lines.
  PtxProgram softmax = Ptx(R"(graph @g(%x: f32[65536,768]) {
    %s = softmax(%x) {axis=1} : f32[65536,768]
    return %s
  })");
  ASSERT_EQ(softmax.launches.size(), 1u);
  EXPECT_EQ(softmax.launches[0].form, KernelForm::kRowReduction);
  PtxProgram sum = Ptx(R"(graph @g(%x: f32[32768,512]) {
    %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[32768]
    return %s
  })");
  ASSERT_EQ(sum.launches.size(), 1u);
  EXPECT_EQ(sum.launches[0].form, KernelForm::kRowReduction);
  // A 16x16 stride-16 patch embedding: neighbouring outputs are 64 bytes
  // apart, a row's 16 taps of an image row are contiguous.
  PtxProgram patches = Ptx(Conv("f32", 3, 224, 192, 16, 16, 0));
  ASSERT_EQ(patches.launches.size(), 1u);
  EXPECT_EQ(patches.launches[0].form, KernelForm::kRowReduction);
}

TEST(PtxThreadRowsTest, FewRowsOrLongRowsKeepTheRowForms) {
  EnvOverride on("REPROKIT_CUDA_THREAD_ROWS", "1");
  // 16 x 8 x 8 outputs: too few threads.
  PtxProgram few = Ptx(Conv("f32", 64, 8, 16, 3, 1));
  ASSERT_EQ(few.launches.size(), 1u);
  EXPECT_EQ(few.launches[0].form, KernelForm::kRowReduction);
  // Columns of 20000: too long for one thread.
  PtxProgram tall = Ptx(absl::StrCat("graph @g(%x: f32[", kMaxThreadRowPoints + 1, ",", kMinThreadRows,
                                     "]) {\n  %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[",
                                     kMinThreadRows, "]\n  return %s\n}"));
  ASSERT_EQ(tall.launches.size(), 1u);
  EXPECT_NE(tall.launches[0].form, KernelForm::kGridStride);
}

TEST(PtxThreadRowsTest, SoftmaxOverColumnsReducesAThreadPerColumn) {
  EnvOverride on("REPROKIT_CUDA_THREAD_ROWS", "1");
  // Softmax over axis 0 is four kernels; its max and sum read down columns.
  PtxProgram p = Ptx(R"(graph @g(%x: f32[64,65536]) {
    %s = softmax(%x) {axis=0} : f32[64,65536]
    return %s
  })");
  ASSERT_EQ(p.launches.size(), 4u);
  for (const auto& launch : p.launches) EXPECT_EQ(launch.form, KernelForm::kGridStride);
  EXPECT_EQ(p.launches[0].work, 65536);
  EXPECT_EQ(p.launches[2].work, 65536);
  // The column reductions in small blocks, the elementwise kernels as ever.
  EXPECT_EQ(p.launches[0].block[0], static_cast<uint32_t>(kThreadRowBlockThreads));
  EXPECT_EQ(p.launches[1].block[0], static_cast<uint32_t>(kGridStrideThreads));
}

TEST(PtxThreadRowsTest, EpilogueLoopsKeepTheRowForms) {
  EnvOverride on("REPROKIT_CUDA_THREAD_ROWS", "1");
  // The transposed softmax's sum reads down columns too, but its divide is a
  // loop over the row in the epilogue: that kernel stays in the row forms.
  PtxProgram p = Ptx(R"(graph @g(%x: f32[64,65536]) {
    %t = transpose(%x) {perm=[1,0]} : f32[65536,64]
    %s = softmax(%t) {axis=1} : f32[65536,64]
    return %s
  })");
  ASSERT_EQ(p.launches.size(), 2u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kGridStride);  // the max: no epilogue loop
  EXPECT_EQ(p.launches[1].form, KernelForm::kRowReduction);
}

}  // namespace
}  // namespace rk::compiler::cuda
