// The PTX of programs compiled through the disk kernel cache
// (GpuOptions::disk_cache, ptx_compiler.h): a module a unit, named by content,
// read back from disk. No GPU needed.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

// Several units of emission: a matmul, an elementwise kernel, a row group.
constexpr char kSeveralUnits[] = R"(graph @g(%x: f32[8,64], %w: f32[64,128], %b: f32[128]) {
  %h = matmul(%x, %w) : f32[8,128]
  %hb = add(%h, %b) : f32[8,128]
  %a = gelu(%hb) : f32[8,128]
  %s = softmax(%a) {axis=1} : f32[8,128]
  return %s
})";

// With a disk cache every unit is a module of its own, named by content: the
// same unit in another program (here: the same softmax row group after other
// kernels, so at another index) has the same PTX text, and a second compile
// reads every module from the cache, unchanged.
TEST(PtxModuleCacheTest, CachedUnitsAreNamedByContentAndReadBackFromDisk) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/ptx_cache");
  std::filesystem::remove_all(dir);
  DiskKernelCache cache(dir, DiskKernelCache::kDefaultMaxBytes);
  GpuOptions cached;
  cached.disk_cache = &cache;
  const PtxProgram first = Ptx(kSeveralUnits, {}, cached);
  ASSERT_FALSE(first.launches.empty());
  EXPECT_EQ(first.disk_cached_modules, 0);
  EXPECT_GT(first.modules.size(), 1u);
  for (const KernelLaunch& l : first.launches) {
    EXPECT_TRUE(absl::StrContains(first.modules[l.module], ".entry " + l.entry + "(")) << l.entry;
    EXPECT_EQ(l.entry.substr(0, 3), "rk_");
  }
  EXPECT_EQ(cache.hits(), 0);

  const PtxProgram second = Ptx(kSeveralUnits, {}, cached);
  EXPECT_EQ(second.disk_cached_modules, static_cast<int>(second.modules.size()));
  EXPECT_EQ(second.modules, first.modules);
  ASSERT_EQ(second.launches.size(), first.launches.size());
  for (size_t i = 0; i < first.launches.size(); ++i) {
    EXPECT_EQ(second.launches[i].entry, first.launches[i].entry);
  }

  // The softmax alone, and after an unrelated kernel: the same module.
  const PtxProgram alone = Ptx(R"(graph @g(%x: f32[8,128]) {
  %s = softmax(%x) {axis=1} : f32[8,128]
  return %s
})", {}, cached);
  const PtxProgram after = Ptx(R"(graph @g(%v: f32[1000], %x: f32[8,128]) {
  %e = exp(%v) : f32[1000]
  %s = softmax(%x) {axis=1} : f32[8,128]
  return %e, %s
})", {}, cached);
  ASSERT_EQ(alone.modules.size(), 1u);
  ASSERT_EQ(after.modules.size(), 2u);
  EXPECT_TRUE(after.modules[0] == alone.modules[0] || after.modules[1] == alone.modules[0]);
  EXPECT_GE(after.disk_cached_modules, 1);

  // A program without units still gets one module the driver can load (an
  // empty text is CUDA_ERROR_INVALID_IMAGE: every judgement of a graph that
  // folded whole failed to compile on the GPU).
  for (const char* text : {R"(graph @g(%x: f32[]) {
  return %x
})", R"(graph @g() {
  %f = full() {dtype=f32, shape=[4], value=2.0} : f32[4]
  %e = exp(%f) : f32[4]
  return %e
})"}) {
    const PtxProgram empty = Ptx(text, {}, cached);
    ASSERT_EQ(empty.modules.size(), 1u) << text;
    EXPECT_TRUE(empty.launches.empty());
    EXPECT_TRUE(absl::StrContains(empty.modules[0], ".version")) << empty.modules[0];
  }

  // Without a cache nothing changes: units share modules, one a thread.
  GpuOptions serial;
  serial.compile_threads = 1;
  EXPECT_EQ(Ptx(kSeveralUnits, {}, serial).modules.size(), 1u);
}

}  // namespace
}  // namespace rk::compiler::cuda
