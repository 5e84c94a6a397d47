// device=cuda: row reductions that run a thread per row
// (compiler/cuda/planning/thread_rows.h) judged against the reference with
// gpu_accuracy.h's error budget: ResNet-18's convolutions (3x3 stride 1 and
// 2, 1x1 stride 2, the 7x7 stem; padding at every edge), in f32, f16 and
// bf16, a depthwise 7x7, column sums and a softmax over axis 0. Each case
// first checks, on its PTX, that it does take the thread form, so the values
// judged are that form's. Skips where there is no GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "compiler/tests/cuda_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

std::string Conv(const std::string& t, int cin, int size, int cout, int kernel, int stride,
                 int groups = 1) {
  const int pad = kernel / 2;
  const int out = (size + 2 * pad - kernel) / stride + 1;
  return absl::StrCat("graph @g(%x: ", t, "[1,", cin, ",", size, ",", size, "], %w: ", t, "[",
                      cout, ",", cin / groups, ",", kernel, ",", kernel, "]) {\n %y = conv2d(%x, %w) ",
                      "{dilations=[1,1], groups=", groups, ", pads=[", pad, ",", pad, ",", pad, ",",
                      pad, "], strides=[", stride, ",", stride, "]} : ", t, "[1,", cout, ",", out,
                      ",", out, "]\n return %y\n}");
}

struct Case {
  std::string text;
  std::string dtype;
  int64_t rows;
};

// Checks on the PTX (no GPU needed) that each case's first kernel runs a
// thread per row (a grid-stride launch of one row a thread), then judges
// the cases on the GPU.
void CheckThreadRows(const std::vector<Case>& cases) {
  cuda::EnvOverride on("REPROKIT_CUDA_THREAD_ROWS", "1");  // off by default (thread_rows.h)
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    cuda::PtxProgram p = cuda::Ptx(c.text);
    ASSERT_FALSE(p.launches.empty());
    EXPECT_EQ(p.launches[0].form, cuda::KernelForm::kGridStride);
    EXPECT_EQ(p.launches[0].work, c.rows);
  }
  REQUIRE_GPU();
  for (const Case& c : cases) Check(c.text, Tolerance(c.dtype));
}

TEST(CudaThreadRowsTest, ResNetConvolutions) {
  CheckThreadRows({{Conv("f32", 64, 56, 64, 3, 1), "f32", 64 * 56 * 56},
                   {Conv("f32", 64, 56, 128, 3, 2), "f32", 128 * 28 * 28},
                   {Conv("f32", 64, 56, 128, 1, 2), "f32", 128 * 28 * 28},
                   {Conv("f32", 3, 224, 64, 7, 2), "f32", 64 * 112 * 112},
                   {Conv("f32", 256, 14, 256, 3, 1), "f32", 256 * 14 * 14},
                   // 49 rows of 7: a warp's rows span output rows and channels.
                   {Conv("f32", 512, 7, 512, 3, 1), "f32", 512 * 7 * 7}});
}

TEST(CudaThreadRowsTest, LowPrecisionAndDepthwiseConvolutions) {
  CheckThreadRows({{Conv("f16", 128, 28, 128, 3, 1), "f16", 128 * 28 * 28},
                   {Conv("bf16", 128, 28, 128, 3, 1), "bf16", 128 * 28 * 28},
                   // ConvNeXt's depthwise 7x7: 49 taps a row.
                   {Conv("f32", 96, 56, 96, 7, 1, 96), "f32", 96 * 56 * 56}});
}

TEST(CudaThreadRowsTest, ColumnSumsAndSoftmaxOverColumns) {
  CheckThreadRows({{R"(graph @g(%x: f32[64,262144]) {
    %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[262144]
    return %s
  })", "f32", 262144},
                   {R"(graph @g(%x: bf16[100,40000]) {
    %s = reduce_max(%x) {axes=[0], keepdim=false} : bf16[40000]
    return %s
  })", "bf16", 40000},
                   {R"(graph @g(%x: f32[64,65536]) {
    %s = softmax(%x) {axis=0} : f32[64,65536]
    return %s
  })", "f32", 65536}});
}

}  // namespace
}  // namespace rk::compiler
