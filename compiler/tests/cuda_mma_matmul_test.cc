// device=cuda: f16/bf16 matmuls on the tensor cores (compiler/cuda/planning/
// mma_matmul.h) judged against the reference with gpu_accuracy.h's error
// budget: ragged edges in every dimension, k not a multiple of the k tile,
// batched and broadcast operands, a linear layer's transposed weight with a
// fused epilogue, a single row, long k; and a planted fault in the matmul's
// result still shows. Skips where there is no GPU.
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/tests/cuda_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

std::string Matmul(const std::string& t, const std::string& a, const std::string& b,
                   const std::string& c) {
  return absl::StrCat("graph @g(%a: ", t, "[", a, "], %b: ", t, "[", b, "]) {\n %c = matmul(%a, %b) : ",
                      t, "[", c, "]\n return %c\n}");
}

std::string Linear(const std::string& t) {
  return absl::StrCat("graph @g(%x: ", t, "[4,96,64], %w: ", t, "[80,64], %r: f32[4,96,80]) {\n",
                      " %t = transpose(%w) {perm=[1,0]} : ", t, "[64,80]\n",
                      " %h = matmul(%x, %t) : ", t, "[4,96,80]\n",
                      " %g = gelu(%h) : ", t, "[4,96,80]\n",
                      " %c = cast(%g) {dtype=f32} : f32[4,96,80]\n",
                      " %o = add(%c, %r) : f32[4,96,80]\n return %o\n}");
}

TEST(CudaMmaMatmulTest, ShapesLayoutsAndEpilogues) {
  REQUIRE_GPU();
  for (const std::string t : {"f16", "bf16"}) {
    SCOPED_TRACE(t);
    Check(Matmul(t, "130,264", "264,72", "130,72"), Tolerance(t));
    Check(Matmul(t, "3,1,40,64", "4,64,24", "3,4,40,24"), Tolerance(t));
    Check(Matmul(t, "1,64", "64,136", "1,136"), Tolerance(t));
    Check(Matmul(t, "256,1024", "1024,256", "256,256"), Tolerance(t));
    Check(Matmul(t, "300,8", "8,264", "300,264"), Tolerance(t));
    Check(Linear(t), Tolerance(t));
  }
}

TEST(CudaMmaMatmulTest, TheSimtFormStaysAvailable) {
  REQUIRE_GPU();
  CompileOptions simt = Cuda();
  simt.tensor_cores = false;
  Check(Matmul("bf16", "130,264", "264,72", "130,72"), Tolerance("bf16"), simt);
  CompileOptions fast = Cuda();
  fast.fast_math = true;  // f32 accumulators in the kernel IR too
  Check(Matmul("bf16", "130,264", "264,72", "130,72"), Tolerance("bf16"), fast);
}

TEST(CudaMmaMatmulTest, AFaultInTheResultStillShows) {
  REQUIRE_GPU();
  CompileOptions faulty = Cuda();
  faulty.faults = {"matmul:accuracy"};
  absl::StatusOr<std::string> mismatch =
      cuda::CompareWithErrorBudget(Linear("bf16"), faulty, Tolerance("bf16"));
  ASSERT_TRUE(mismatch.ok()) << mismatch.status();
  EXPECT_NE(*mismatch, "");
}

}  // namespace
}  // namespace rk::compiler
