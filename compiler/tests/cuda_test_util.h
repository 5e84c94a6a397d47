// Shared by the GPU test files (test-only, header-only): skip without a
// GPU, judge a graph's CUDA results with gpu_accuracy.h's error budget, and
// graph texts several files use.
#ifndef REPROKIT_COMPILER_TESTS_CUDA_TEST_UTIL_H_
#define REPROKIT_COMPILER_TESTS_CUDA_TEST_UTIL_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/runtime/cuda_driver.h"
#include "compiler/options/compile_options.h"
#include "compiler/tests/gpu_accuracy.h"
#include "gtest/gtest.h"

namespace rk::compiler {

#define REQUIRE_GPU()                                                              \
  do {                                                                             \
    absl::StatusOr<cuda::CudaDevice*> device = cuda::CudaDevice::Get();              \
    if (!device.ok()) GTEST_SKIP() << "no GPU: " << device.status().message();     \
  } while (0)

inline const char* const kFloatTypes[] = {"f32", "f16", "bf16"};

inline double Tolerance(const std::string& dtype) {
  if (dtype == "f16") return 2e-3;
  if (dtype == "bf16") return 1.6e-2;
  if (dtype == "f64") return 1e-12;
  return 1e-5;
}

inline CompileOptions Cuda() {
  CompileOptions options;
  options.device = "cuda";
  return options;
}

inline void Check(const std::string& text, double rtol, CompileOptions options = Cuda(),
           const RandomSpec& spec = {}) {
  SCOPED_TRACE(text);
  options.device = "cuda";
  absl::StatusOr<std::string> mismatch = cuda::CompareWithErrorBudget(text, options, rtol, spec);
  ASSERT_TRUE(mismatch.ok()) << mismatch.status();
  EXPECT_EQ(*mismatch, "");
}

// softmax, log_softmax, layer_norm and rms_norm over axis 1 of dtype[shape].
inline std::string NormalizationGraph(const std::string& dtype, const std::string& shape) {
  const std::string t = absl::StrCat(dtype, "[", shape, "]");
  const std::string last = shape.substr(shape.find(',') + 1);
  const std::string v = absl::StrCat(dtype, "[", last, "]");
  return absl::StrCat("graph @g(%x: ", t, ", %g: ", v, ", %b: ", v, ") {\n",
                      " %s = softmax(%x) {axis=1} : ", t, "\n",
                      " %l = log_softmax(%x) {axis=-1} : ", t, "\n",
                      " %n = layer_norm(%x, %g, %b) {axis=1, eps=1e-5} : ", t, "\n",
                      " %r = rms_norm(%x, %g) {axis=1, eps=1e-5} : ", t, "\n",
                      " return %s, %l, %n, %r\n}");
}

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_TESTS_CUDA_TEST_UTIL_H_
