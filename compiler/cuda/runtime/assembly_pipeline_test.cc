// AssemblyPipeline without a GPU: modules handed over while others compile
// are assembled before Finish is called (the overlap), through the cubin
// cache; what cannot be assembled is left out for the loader; the owner's
// way out drops what is queued and joins. With ptxas present, the real
// modules of a program, each handed over by CompileToPtx's on_module as it is
// printed, all come back as CUDA ELF images.
#include "compiler/cuda/runtime/assembly_pipeline.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "compiler/cuda/runtime/cuda_driver.h"
#include "compiler/cuda/runtime/ptxas_assembler.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

// A stand-in assembler: 20 ms a module, a minimal CUDA ELF image carrying the
// arch and PTX; PTX containing "bad" is refused.
class SlowFakeAssembler final : public PtxAssembler {
 public:
  const char* name() const override { return "slow-fake"; }
  const std::string& identity() const override { return identity_; }
  const char* options() const override { return "-O3"; }
  absl::StatusOr<std::string> Assemble(std::string_view ptx, const std::string& arch,
                                       const std::string& module_name) const override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    calls_.fetch_add(1);
    if (ptx.find("bad") != std::string_view::npos) {
      return absl::InternalError(absl::StrCat("refused ", module_name));
    }
    std::string elf(64, '\0');
    elf.replace(0, 4, "\x7f" "ELF");
    elf[4] = 2;
    elf[18] = static_cast<char>(190);
    return absl::StrCat(elf, arch, ":", std::string(ptx));
  }
  int calls() const { return calls_; }

 private:
  std::string identity_ = "slow-fake 1";
  mutable std::atomic<int> calls_{0};
};

AssemblyPipeline::ArchFn Sm90() {
  return [](std::string_view) -> absl::StatusOr<std::string> { return std::string("sm_90"); };
}

std::string Module(int i) { return absl::StrCat(".entry rk_k", i, "(\n"); }

std::string FreshDir(const std::string& name) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(AssemblyPipelineTest, ModulesAssembleAsTheyArriveAndComeBackByIndex) {
  SlowFakeAssembler fake;
  AssemblyPipeline pipeline([&] { return &fake; }, Sm90(), nullptr, 4);
  pipeline.Add(3, Module(3));
  // Assembly runs before Finish: what a compile's later modules overlap.
  for (int waited = 0; fake.calls() == 0 && waited < 2000; waited += 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(fake.calls(), 1);
  std::vector<std::thread> compilers;
  for (int t = 0; t < 3; ++t) {
    compilers.emplace_back([&, t] {
      for (int i = t; i < 3 * 4; i += 3) {
        if (i != 3) pipeline.Add(i, Module(i));
      }
    });
  }
  for (std::thread& t : compilers) t.join();
  PipelineResult result = pipeline.Finish();
  ASSERT_EQ(result.cubins.size(), 12u);
  for (const auto& [module, made] : result.cubins) {
    EXPECT_EQ(made.arch, "sm_90");
    EXPECT_TRUE(LooksLikeCubin(made.cubin));
    EXPECT_NE(made.cubin.find(Module(module)), std::string::npos) << module;
  }
  EXPECT_EQ(result.assembled, 12);
  EXPECT_GE(result.threads, 1);
  EXPECT_LE(result.threads, 4);
  pipeline.Add(99, Module(99));  // after Finish: ignored
  EXPECT_TRUE(pipeline.Finish().cubins.empty());
}

TEST(AssemblyPipelineTest, TheSameTextTwiceIsAssembledOnce) {
  SlowFakeAssembler fake;
  AssemblyPipeline pipeline([&] { return &fake; }, Sm90(), nullptr, 4);
  pipeline.Add(0, Module(0));
  pipeline.Add(1, Module(1));
  pipeline.Add(2, Module(0));
  pipeline.Add(3, Module(0));
  PipelineResult result = pipeline.Finish();
  EXPECT_EQ(fake.calls(), 2);
  ASSERT_EQ(result.cubins.size(), 4u);
  EXPECT_EQ(result.cubins[2].cubin, result.cubins[0].cubin);
  EXPECT_EQ(result.cubins[3].cubin, result.cubins[0].cubin);
  EXPECT_NE(result.cubins[1].cubin, result.cubins[0].cubin);
}

TEST(AssemblyPipelineTest, CubinsComeFromTheDiskCacheTheSecondTime) {
  const std::string dir = FreshDir("pipeline_cache");
  DiskKernelCache cache(dir, DiskKernelCache::kDefaultMaxBytes);
  SlowFakeAssembler fake;
  for (int round = 0; round < 2; ++round) {
    AssemblyPipeline pipeline([&] { return &fake; }, Sm90(), &cache, 2);
    for (int i = 0; i < 3; ++i) pipeline.Add(i, Module(i));
    PipelineResult result = pipeline.Finish();
    EXPECT_EQ(result.cubins.size(), 3u);
    EXPECT_EQ(result.cache_hits, round == 0 ? 0 : 3);
    EXPECT_EQ(result.assembled, round == 0 ? 3 : 0);
  }
  EXPECT_EQ(fake.calls(), 3);
}

TEST(AssemblyPipelineTest, WhatCannotBeAssembledIsLeftToTheLoader) {
  SlowFakeAssembler fake;
  {
    AssemblyPipeline pipeline([&] { return &fake; }, Sm90(), nullptr, 2);
    pipeline.Add(0, Module(0));
    pipeline.Add(1, "bad PTX");
    PipelineResult result = pipeline.Finish();
    EXPECT_EQ(result.cubins.size(), 1u);
    EXPECT_EQ(result.cubins.count(0), 1u);
  }
  {
    // No GPU: no arch, nothing assembled.
    AssemblyPipeline pipeline(
        [&] { return &fake; },
        [](std::string_view) -> absl::StatusOr<std::string> {
          return absl::UnavailableError("no GPU");
        },
        nullptr, 2);
    pipeline.Add(0, Module(0));
    EXPECT_TRUE(pipeline.Finish().cubins.empty());
  }
  {
    // The driver's JIT chosen: no assembler, nothing to do.
    AssemblyPipeline pipeline([]() -> const PtxAssembler* { return nullptr; }, Sm90(), nullptr, 2);
    pipeline.Add(0, Module(0));
    EXPECT_TRUE(pipeline.Finish().cubins.empty());
  }
  EXPECT_EQ(fake.calls(), 2);
}

TEST(AssemblyPipelineTest, TheOwnersWayOutDropsWhatIsQueuedAndJoins) {
  SlowFakeAssembler fake;
  const auto start = std::chrono::steady_clock::now();
  {
    AssemblyPipeline pipeline([&] { return &fake; }, Sm90(), nullptr, 1);
    for (int i = 0; i < 50; ++i) pipeline.Add(i, Module(i));
  }  // no Finish: a compile that failed after LLVM
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(fake.calls(), 50);
  EXPECT_LT(ms, 50 * 20 / 2) << "queued modules were assembled, not dropped";
}

TEST(AssemblyPipelineTest, TheGuessedArchIsThePtxsOwnTarget) {
  EXPECT_EQ(PtxTargetArch(".version 8.0\n.target sm_90\n.address_size 64\n"), "sm_90");
  EXPECT_EQ(PtxTargetArch(".target sm_90a\n"), "sm_90a");
  EXPECT_EQ(PtxTargetArch(".target sm_86\n"), "sm_86");
  // Without a GPU (known once cuInit has failed here), nothing to assemble for.
  if (!CudaDevice::Describe().ok()) {
    absl::StatusOr<std::string> arch = AssemblyPipeline::DeviceArchFn()(".target sm_90\n");
    EXPECT_FALSE(arch.ok());
  } else {
    EXPECT_TRUE(AssemblyPipeline::DeviceArchFn()(".target sm_90\n").ok());
  }
}

TEST(AssemblyPipelineTest, CompileToPtxHandsEachModuleOverOnceAsItIsPrinted) {
  std::mutex mu;
  std::map<int, std::string> seen;
  int calls = 0;
  GpuOptions gpu;
  gpu.compile_threads = 3;
  gpu.on_module = [&](int module, const std::string& ptx) {
    std::lock_guard<std::mutex> lock(mu);
    ++calls;
    seen[module] = ptx;
  };
  const PtxProgram program = Ptx(R"(graph @g(%x: f32[64,256], %w: f32[256,32]) {
    %s = softmax(%x) {axis=1} : f32[64,256]
    %t = tanh(%s) : f32[64,256]
    %m = matmul(%t, %w) : f32[64,32]
    %r = sigmoid(%m) : f32[64,32]
    return %r
  })", {}, gpu);
  ASSERT_GT(program.modules.size(), 1u);
  EXPECT_EQ(calls, static_cast<int>(program.modules.size()));
  ASSERT_EQ(seen.size(), program.modules.size());
  for (size_t i = 0; i < program.modules.size(); ++i) EXPECT_EQ(seen[i], program.modules[i]);
}

TEST(AssemblyPipelineTest, RealModulesAssembleByPtxasWhileTheProgramCompiles) {
  absl::StatusOr<std::unique_ptr<PtxAssembler>> ptxas = MakePtxasAssembler(FindPtxas());
  if (!ptxas.ok()) GTEST_SKIP() << ptxas.status();
  const PtxAssembler* assembler = ptxas->get();
  AssemblyPipeline pipeline([&] { return assembler; }, Sm90(), nullptr, 4);
  GpuOptions gpu;
  gpu.compile_threads = 3;
  gpu.on_module = [&](int module, const std::string& ptx) { pipeline.Add(module, ptx); };
  const PtxProgram program = Ptx(R"(graph @g(%x: f32[64,256], %g: f32[256], %b: f32[256]) {
    %s = softmax(%x) {axis=1} : f32[64,256]
    %n = layer_norm(%s, %g, %b) {axis=1, eps=1e-5} : f32[64,256]
    %e = exp(%n) : f32[64,256]
    return %e
  })", {}, gpu);
  PipelineResult result = pipeline.Finish();
  ASSERT_EQ(result.cubins.size(), program.modules.size());
  for (const auto& [module, made] : result.cubins) {
    EXPECT_TRUE(LooksLikeCubin(made.cubin)) << "module " << module;
  }
}

}  // namespace
}  // namespace rk::compiler::cuda
