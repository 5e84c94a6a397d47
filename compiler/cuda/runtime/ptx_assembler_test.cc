// PTX -> cubin off the driver, without a GPU: the real PTX of our code
// generator assembles by ptxas and by nvJitLink into CUDA ELF images for the
// asked arch, several modules at once; bad PTX is an error naming the module;
// a missing tool falls back; the cubin cache hits, misses and replaces
// corrupt entries (with a fake assembler, so those cases run everywhere).
// The toolkit cases skip, saying why, where ptxas or libnvJitLink is absent
// (CI).
#include "compiler/cuda/runtime/ptx_assembler.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/parallel_for.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "compiler/cuda/runtime/cubin_builder.h"
#include "compiler/cuda/runtime/nvjitlink_assembler.h"
#include "compiler/cuda/runtime/ptxas_assembler.h"
#include "compiler/support/disk_kernel_cache.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

// Several kernels of different forms (row reductions, elementwise with
// libdevice math, a matmul), so the program has several modules.
constexpr char kGraph[] = R"(graph @g(%x: f32[64,256], %w: f32[256,32], %g: f32[256], %b: f32[256]) {
  %s = softmax(%x) {axis=1} : f32[64,256]
  %t = tanh(%s) : f32[64,256]
  %n = layer_norm(%t, %g, %b) {axis=1, eps=1e-5} : f32[64,256]
  %e = exp(%n) : f32[64,256]
  %m = matmul(%e, %w) : f32[64,32]
  %r = sigmoid(%m) : f32[64,32]
  return %r
})";

std::vector<std::string> ProgramModules(int modules) {
  GpuOptions gpu;
  gpu.compile_threads = modules;
  PtxProgram ptx = Ptx(kGraph, {}, gpu);
  return ptx.modules;
}

// The SM number an ELF cubin is for (e_flags: bits 8-15 from ELF ABI
// version 8 on, bits 0-7 before).
int CubinSm(const std::string& cubin) {
  if (cubin.size() < 52) return -1;
  uint32_t flags = 0;
  for (int i = 3; i >= 0; --i) flags = (flags << 8) | static_cast<unsigned char>(cubin[48 + i]);
  return static_cast<unsigned char>(cubin[8]) >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
}

// Sets (or, with null, unsets) an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value == nullptr) {
      ::unsetenv(name);
    } else {
      ::setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

std::unique_ptr<PtxAssembler> PtxasOrNull() {
  absl::StatusOr<std::unique_ptr<PtxAssembler>> ptxas = MakePtxasAssembler(FindPtxas());
  return ptxas.ok() ? *std::move(ptxas) : nullptr;
}

TEST(AssemblyArchTest, DeviceArchUnlessThePtxIsArchSpecific) {
  const std::string plain = ".version 7.8\n.target sm_90\n.address_size 64\n";
  EXPECT_EQ(AssemblyArch(plain, 9, 0), "sm_90");
  EXPECT_EQ(AssemblyArch(plain, 10, 0), "sm_100");
  EXPECT_EQ(AssemblyArch(".target sm_90a\n", 9, 0), "sm_90a");
  EXPECT_EQ(AssemblyArch("no target", 8, 6), "sm_86");
}

TEST(LooksLikeCubinTest, RejectsWhatIsNotACudaElf) {
  EXPECT_FALSE(LooksLikeCubin(""));
  EXPECT_FALSE(LooksLikeCubin(std::string(100, 'x')));
  std::string elf(64, '\0');
  elf.replace(0, 4, "\x7f" "ELF");
  elf[4] = 2;
  elf[18] = 62;  // x86-64
  EXPECT_FALSE(LooksLikeCubin(elf));
  elf[18] = static_cast<char>(190);
  EXPECT_TRUE(LooksLikeCubin(elf));
}

TEST(ChooseAssemblerTest, NamesAndFallbacks) {
  EXPECT_EQ(ChooseAssembler("gcc").status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<AssemblerChoice> driver = ChooseAssembler("driver");
  ASSERT_TRUE(driver.ok());
  EXPECT_EQ(driver->name(), "driver");
  EXPECT_EQ(driver->assembler, nullptr);
  {
    // No ptxas where $REPROKIT_PTXAS says: ptxas falls back to the driver.
    ScopedEnv env("REPROKIT_PTXAS", "/nonexistent/ptxas");
    absl::StatusOr<AssemblerChoice> choice = ChooseAssembler("ptxas");
    ASSERT_TRUE(choice.ok());
    EXPECT_EQ(choice->name(), "driver");
    EXPECT_TRUE(absl::StrContains(choice->note, "/nonexistent/ptxas")) << choice->note;
    EXPECT_EQ(MakePtxasAssembler("/nonexistent/ptxas").status().code(),
              absl::StatusCode::kNotFound);
  }
  {
    // No nvJitLink: nvjitlink falls back to ptxas where there is one.
    ScopedEnv env("REPROKIT_NVJITLINK", "off");
    absl::StatusOr<AssemblerChoice> choice = ChooseAssembler("nvjitlink");
    ASSERT_TRUE(choice.ok());
    EXPECT_EQ(choice->name(), PtxasOrNull() != nullptr ? "ptxas" : "driver");
    EXPECT_TRUE(absl::StrContains(choice->note, "nvjitlink unavailable")) << choice->note;
  }
}

TEST(SelectedAssemblerTest, PreparedInTheBackgroundIsTheEnvironmentsChoice) {
  PrepareAssemblerInBackground();
  PrepareAssemblerInBackground();  // the second call does nothing
  const AssemblerChoice& selected = SelectedAssembler();
  const char* env = std::getenv("REPROKIT_CUDA_ASSEMBLER");
  absl::StatusOr<AssemblerChoice> expected = ChooseAssembler(env == nullptr ? "auto" : env);
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_EQ(selected.name(), expected->name());
  EXPECT_EQ(&SelectedAssembler(), &selected);
}

// Each assembler found here turns every module of a real program into a
// cubin for the asked arch, on several threads.
void ExpectAssemblesProgram(const PtxAssembler& assembler) {
  const std::vector<std::string> modules = ProgramModules(4);
  ASSERT_GE(modules.size(), 3u);
  for (const char* arch : {"sm_90", "sm_100"}) {
    CubinBuildStats stats;
    absl::StatusOr<std::vector<std::string>> cubins =
        BuildCubins(assembler, modules, arch, nullptr, 4, &stats);
    ASSERT_TRUE(cubins.ok()) << cubins.status();
    ASSERT_EQ(cubins->size(), modules.size());
    for (const std::string& cubin : *cubins) {
      EXPECT_TRUE(LooksLikeCubin(cubin));
      EXPECT_EQ(absl::StrCat("sm_", CubinSm(cubin)), arch);
    }
    EXPECT_EQ(stats.assembled, static_cast<int>(modules.size()));
    EXPECT_EQ(stats.threads, 4);
  }
}

void ExpectBadPtxNamesModule(const PtxAssembler& assembler) {
  std::vector<std::string> modules = ProgramModules(3);
  ASSERT_GE(modules.size(), 2u);
  std::string& bad = modules[1];
  const size_t brace = bad.rfind('}');
  ASSERT_NE(brace, std::string::npos);
  bad.insert(brace, "\tbogus.instruction %r1;\n");
  absl::StatusOr<std::vector<std::string>> cubins =
      BuildCubins(assembler, modules, "sm_90", nullptr, 3);
  ASSERT_FALSE(cubins.ok());
  EXPECT_EQ(cubins.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(cubins.status().message(), "module 1 (")) << cubins.status();
  EXPECT_TRUE(absl::StrContains(absl::AsciiStrToLower(cubins.status().message()),
                                assembler.name()))
      << cubins.status();
}

TEST(PtxasTest, AssemblesRealPtxOnSeveralThreads) {
  std::unique_ptr<PtxAssembler> ptxas = PtxasOrNull();
  if (ptxas == nullptr) GTEST_SKIP() << MakePtxasAssembler(FindPtxas()).status();
  EXPECT_TRUE(absl::StrContains(ptxas->identity(), "ptxas")) << ptxas->identity();
  ExpectAssemblesProgram(*ptxas);
}

TEST(PtxasTest, BadPtxIsAnErrorNamingTheModule) {
  std::unique_ptr<PtxAssembler> ptxas = PtxasOrNull();
  if (ptxas == nullptr) GTEST_SKIP() << MakePtxasAssembler(FindPtxas()).status();
  ExpectBadPtxNamesModule(*ptxas);
}

TEST(NvJitLinkTest, AssemblesRealPtxOnSeveralThreads) {
  absl::StatusOr<std::unique_ptr<PtxAssembler>> nvjitlink = MakeNvJitLinkAssembler();
  if (!nvjitlink.ok()) GTEST_SKIP() << nvjitlink.status();
  EXPECT_TRUE(absl::StartsWith((*nvjitlink)->identity(), "nvjitlink ")) << (*nvjitlink)->identity();
  ExpectAssemblesProgram(**nvjitlink);
  ExpectBadPtxNamesModule(**nvjitlink);
}

// $REPROKIT_CUDA_JIT_O trades assembly time for code quality in both
// assemblers too (nvJitLink takes -O0 and -O3 only: the levels between go to
// its ptxas); the option is part of the cache key.
TEST(OptLevelTest, EveryLevelAssembles) {
  std::vector<std::string> modules;
  for (const char* level : {"0", "1", "4"}) {
    ScopedEnv env("REPROKIT_CUDA_JIT_O", level);
    EXPECT_EQ(AssemblerOptLevel(), std::string("-O") + (level[0] == '4' ? '3' : level[0]));
    std::vector<std::unique_ptr<PtxAssembler>> found;
    if (auto ptxas = PtxasOrNull()) found.push_back(std::move(ptxas));
    if (auto nvjitlink = MakeNvJitLinkAssembler(); nvjitlink.ok()) {
      found.push_back(*std::move(nvjitlink));
    }
    if (found.empty()) GTEST_SKIP() << "neither ptxas nor libnvJitLink here";
    if (modules.empty()) modules = ProgramModules(1);
    ASSERT_FALSE(modules.empty());
    for (const auto& assembler : found) {
      absl::StatusOr<std::string> cubin = assembler->Assemble(modules[0], "sm_90", "module 0");
      ASSERT_TRUE(cubin.ok()) << assembler->name() << " at level " << level << ": "
                              << cubin.status();
      EXPECT_TRUE(LooksLikeCubin(*cubin));
      EXPECT_TRUE(absl::StrContains(assembler->options(), AssemblerOptLevel()))
          << assembler->options();
    }
  }
}

// The library and ptxas as the Python wheels of torch's environment keep
// them are found.
TEST(PythonPackageFilesTest, FindsWheelFilesOfAVirtualEnv) {
  const std::string venv = absl::StrCat(::testing::TempDir(), "/venv");
  std::filesystem::remove_all(venv);
  const std::string lib = venv + "/lib/python3.12/site-packages/nvidia/cu13/lib";
  ASSERT_TRUE(MakeDirs(lib).ok());
  ASSERT_TRUE(WriteStringToFile(lib + "/libnvJitLink.so.13", "").ok());
  ScopedEnv env("VIRTUAL_ENV", venv.c_str());
  ScopedEnv no_override("REPROKIT_NVJITLINK", nullptr);
  const std::vector<std::string> found =
      PythonPackageFiles("nvidia/cu13/lib/libnvJitLink.so.[0-9]*");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front(), lib + "/libnvJitLink.so.13");
  const std::vector<std::string> candidates = NvJitLinkCandidates();
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), lib + "/libnvJitLink.so.13"),
            candidates.end());
}

TEST(NvJitLinkTest, AMissingLibraryIsNotFound) {
  ScopedEnv env("REPROKIT_NVJITLINK", "/nonexistent/libnvJitLink.so.13");
  absl::StatusOr<std::unique_ptr<PtxAssembler>> nvjitlink = MakeNvJitLinkAssembler();
  EXPECT_EQ(nvjitlink.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(nvjitlink.status().message(), "/nonexistent/libnvJitLink.so.13"))
      << nvjitlink.status();
}

// A stand-in assembler: a minimal CUDA ELF image carrying the PTX's size,
// counting calls and the most calls at once.
class FakeAssembler final : public PtxAssembler {
 public:
  const char* name() const override { return "fake"; }
  const std::string& identity() const override { return identity_; }
  const char* options() const override { return "-O3"; }
  absl::StatusOr<std::string> Assemble(std::string_view ptx, const std::string& arch,
                                       const std::string& module_name) const override {
    const int now = running_.fetch_add(1) + 1;
    int seen = most_.load();
    while (now > seen && !most_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    running_.fetch_sub(1);
    calls_.fetch_add(1);
    if (ptx.find("bad") != std::string_view::npos) {
      return absl::InternalError(absl::StrCat("fake rejected ", module_name));
    }
    std::string elf(64, '\0');
    elf.replace(0, 4, "\x7f" "ELF");
    elf[4] = 2;
    elf[18] = static_cast<char>(190);
    return absl::StrCat(elf, arch, ":", std::string(ptx));
  }
  int calls() const { return calls_; }
  int most_at_once() const { return most_; }

 private:
  std::string identity_ = "fake 1";
  mutable std::atomic<int> running_{0}, most_{0}, calls_{0};
};

std::string FreshDir(const std::string& name) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<std::string> FakeModules(int n) {
  std::vector<std::string> modules;
  for (int i = 0; i < n; ++i) modules.push_back(absl::StrCat(".entry rk_k", i, "(\n"));
  return modules;
}

TEST(CubinBuilderTest, MissThenHitAcrossCacheInstances) {
  const std::string dir = FreshDir("cubin_cache_hit");
  const std::vector<std::string> modules = FakeModules(8);
  FakeAssembler fake;
  CubinBuildStats cold;
  DiskKernelCache cache(dir, DiskKernelCache::kDefaultMaxBytes);
  absl::StatusOr<std::vector<std::string>> first =
      BuildCubins(fake, modules, "sm_90", &cache, 4, &cold);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(cold.assembled, 8);
  EXPECT_EQ(cold.cache_hits, 0);
  EXPECT_GE(fake.most_at_once(), 2);  // several modules at once
  EXPECT_LE(fake.most_at_once(), 4);

  // Another process's cache object over the same directory.
  DiskKernelCache again(dir, DiskKernelCache::kDefaultMaxBytes);
  CubinBuildStats warm;
  absl::StatusOr<std::vector<std::string>> second =
      BuildCubins(fake, modules, "sm_90", &again, 4, &warm);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, *first);
  EXPECT_EQ(warm.cache_hits, 8);
  EXPECT_EQ(warm.assembled, 0);
  EXPECT_EQ(fake.calls(), 8);

  // Another arch is another key.
  CubinBuildStats other;
  ASSERT_TRUE(BuildCubins(fake, modules, "sm_100", &again, 4, &other).ok());
  EXPECT_EQ(other.assembled, 8);
}

TEST(CubinBuilderTest, KeyCoversPtxArchAndAssembler) {
  FakeAssembler fake;
  const std::string key = CubinCacheKey(fake, "ptx", "sm_90");
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, CubinCacheKey(fake, "ptx", "sm_90"));
  EXPECT_NE(key, CubinCacheKey(fake, "ptx ", "sm_90"));
  EXPECT_NE(key, CubinCacheKey(fake, "ptx", "sm_90a"));
  std::unique_ptr<PtxAssembler> ptxas = PtxasOrNull();
  if (ptxas != nullptr) {
    EXPECT_NE(key, CubinCacheKey(*ptxas, "ptx", "sm_90"));
  }
}

TEST(CubinBuilderTest, CorruptEntriesAreAssembledAgainAndReplaced) {
  const std::string dir = FreshDir("cubin_cache_corrupt");
  const std::vector<std::string> modules = FakeModules(3);
  FakeAssembler fake;
  DiskKernelCache cache(dir, DiskKernelCache::kDefaultMaxBytes);
  ASSERT_TRUE(BuildCubins(fake, modules, "sm_90", &cache, 2).ok());
  // Entry 0: a well-formed cache entry whose bytes are no cubin. Entry 1: a
  // truncated file. Entry 2 stays good.
  cache.Store(CubinCacheKey(fake, modules[0], "sm_90"), "not an ELF image");
  const std::string path1 = absl::StrCat(dir, "/", CubinCacheKey(fake, modules[1], "sm_90"), ".o");
  absl::StatusOr<std::string> whole = ReadFileToString(path1);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_TRUE(WriteStringToFile(path1, whole->substr(0, whole->size() / 2)).ok());

  DiskKernelCache again(dir, DiskKernelCache::kDefaultMaxBytes);
  CubinBuildStats stats;
  absl::StatusOr<std::vector<std::string>> cubins =
      BuildCubins(fake, modules, "sm_90", &again, 2, &stats);
  ASSERT_TRUE(cubins.ok()) << cubins.status();
  for (const std::string& cubin : *cubins) EXPECT_TRUE(LooksLikeCubin(cubin));
  EXPECT_EQ(stats.corrupt, 1);
  EXPECT_EQ(again.corrupt(), 1);  // the truncated file, caught by the cache's checksum
  EXPECT_EQ(stats.cache_hits, 1);
  EXPECT_EQ(stats.assembled, 2);

  // Both entries were replaced by good ones.
  DiskKernelCache third(dir, DiskKernelCache::kDefaultMaxBytes);
  CubinBuildStats healed;
  ASSERT_TRUE(BuildCubins(fake, modules, "sm_90", &third, 2, &healed).ok());
  EXPECT_EQ(healed.cache_hits, 3);
  EXPECT_EQ(healed.corrupt, 0);
}

TEST(CubinBuilderTest, FirstErrorInModuleOrderNamesTheModule) {
  std::vector<std::string> modules = FakeModules(6);
  modules[4] += "bad";
  modules[2] += "bad";
  FakeAssembler fake;
  absl::StatusOr<std::vector<std::string>> cubins =
      BuildCubins(fake, modules, "sm_90", nullptr, 3);
  ASSERT_FALSE(cubins.ok());
  EXPECT_TRUE(absl::StrContains(cubins.status().message(), "module 2 (rk_k2)"))
      << cubins.status();
}

TEST(CubinBuilderTest, AssembleThreadsFollowsTheEnvironment) {
  EXPECT_EQ(AssembleThreads(0), 0);
  EXPECT_GE(AssembleThreads(100), 1);
  ScopedEnv env("REPROKIT_COMPILE_THREADS", "3");
  EXPECT_EQ(AssembleThreads(100), 3);
  EXPECT_EQ(AssembleThreads(2), 2);
}

TEST(CubinBuilderTest, AssembleThreadsKeepToAWorkersShare) {
  ScopedEnv env("REPROKIT_COMPILE_THREADS", nullptr);
  SetCompileThreadLimit(1);
  EXPECT_EQ(AssembleThreads(100), 1);
  SetCompileThreadLimit(0);
  EXPECT_EQ(AssembleThreads(100),
            static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace
}  // namespace rk::compiler::cuda
