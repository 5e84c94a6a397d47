// The CUDA cap on a kernel's fused ops (CompileOptions::cuda_max_fused_ops,
// compiler/fusion/fusion.h), through the same phases `compile --device=cuda`
// runs, without a GPU: bench/cli_compile_latency.py's 1,000-op chain becomes
// 7 kernels, each its own PTX module with the disk cache (so they assemble
// on 7 threads), about a seventh of the one uncapped kernel's PTX each: a
// full kernel (more than 128 ops) runs one point a thread, as the uncapped
// one does (kMaxUnrolledOps, nvptx_emitter.h), so the cut adds no code.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "compiler/support/disk_kernel_cache.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

// add y, mul y, tanh, sub y, sigmoid in turn (the bench's chain).
std::string Chain(int ops) {
  const char* forms[] = {"add(%s, %y)", "mul(%s, %y)", "tanh(%s)", "sub(%s, %y)", "sigmoid(%s)"};
  std::string text = "graph @chain(%x: f32[64,64], %y: f32[64,64]) {\n";
  std::string prev = "%x";
  for (int i = 0; i < ops; ++i) {
    std::string op = forms[i % 5];
    op.replace(op.find("%s"), 2, prev);
    absl::StrAppend(&text, "  %v", i, " = ", op, " : f32[64,64]\n");
    prev = absl::StrCat("%v", i);
  }
  absl::StrAppend(&text, "  return ", prev, "\n}\n");
  return text;
}

size_t Largest(const PtxProgram& ptx) {
  size_t most = 0;
  for (const std::string& m : ptx.modules) most = std::max(most, m.size());
  return most;
}

TEST(PtxFusionCapTest, TheThousandOpChainIsSevenKernelsOfASeventhEach) {
  const std::string chain = Chain(1000);
  CompileOptions cuda;
  cuda.device = "cuda";
  absl::StatusOr<kernel::Program> capped = LowerToKernelIr(chain, cuda);
  ASSERT_TRUE(capped.ok()) << capped.status();
  EXPECT_EQ(capped->kernels.size(), 7u);
  CompileOptions uncapped_options = cuda;
  uncapped_options.cuda_max_fused_ops = 0;
  absl::StatusOr<kernel::Program> uncapped = LowerToKernelIr(chain, uncapped_options);
  ASSERT_TRUE(uncapped.ok()) << uncapped.status();
  EXPECT_EQ(uncapped->kernels.size(), 1u);

  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/ptx_cap_cache");
  std::filesystem::remove_all(dir);
  DiskKernelCache cache(dir, DiskKernelCache::kDefaultMaxBytes);
  GpuOptions gpu;
  gpu.disk_cache = &cache;
  const PtxProgram seven = Ptx(chain, cuda, gpu);
  EXPECT_EQ(seven.modules.size(), 7u);
  EXPECT_EQ(seven.launches.size(), 7u);
  const PtxProgram one = Ptx(chain, uncapped_options, gpu);
  ASSERT_EQ(one.modules.size(), 1u);
  // What one assembler thread gets: at most a sixth of the whole chain; all
  // of them together no more than the one kernel and a tenth.
  EXPECT_LT(Largest(seven) * 6, one.ptx.size())
      << Largest(seven) << " of " << one.ptx.size() << " bytes";
  EXPECT_LT(seven.ptx.size() * 10, one.ptx.size() * 11)
      << seven.ptx.size() << " against " << one.ptx.size() << " bytes";

}

TEST(PtxFusionCapTest, AShortChainIsOneKernelAsBefore) {
  CompileOptions cuda;
  cuda.device = "cuda";
  absl::StatusOr<kernel::Program> program = LowerToKernelIr(Chain(100), cuda);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->kernels.size(), 1u);
}

}  // namespace
}  // namespace rk::compiler::cuda
