// CompileForHost with its caches: the objects are the same bytes on one
// thread or four; a second compile reads every kernel from the disk cache
// (no optimization, no code generation) and computes the same bits; corrupt
// entries are recompiled and replaced; options that change code change the
// disk key; without the cache nothing is written.
#include "compiler/cpu/codegen/host_compiler.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/stopwatch.h"
#include "compiler/backend/lower_to_kernels.h"
#include "compiler/cpu/codegen/kernel_cache.h"
#include "compiler/cpu/runtime/executor.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::compiler::cpu {
namespace {

// Four kernels: small ones (a reduction with its epilogue, a small tiled
// matmul) and big ones (elementwise over 128K elements, with exp), so both
// pipelines and both code generation levels run; %r2 repeats %r's kernel on
// other buffers.
constexpr const char* kGraph = R"(graph @g(%x: f32[8,40], %w: f32[40,24], %big: f32[512,256],
                                        %big2: f32[512,256]) {
  %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[8,1]
  %d = sub(%x, %m) : f32[8,40]
  %p = matmul(%d, %w) : f32[8,24]
  %e = exp(%big) : f32[512,256]
  %r = relu(%e) : f32[512,256]
  %e2 = exp(%big2) : f32[512,256]
  %r2 = relu(%e2) : f32[512,256]
  return %p, %r, %r2
})";

// Kernels of `host` that were compiled (not repeats, not from a cache).
int Compiled(const HostProgram& host) {
  int n = 0;
  for (const HostKernelTiming& t : host.timings) n += t.source == "compiled" ? 1 : 0;
  return n;
}

kernel::Program Lower(const CompileOptions& options = {}) {
  absl::StatusOr<Graph> graph = Parse(kGraph);
  EXPECT_TRUE(graph.ok()) << graph.status();
  Stopwatch watch;
  absl::StatusOr<KernelLowering> lowered =
      LowerToKernels(*graph, options, /*tiled_matmul=*/true, watch);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  return std::move(lowered->program);
}

std::vector<HostTensor> Inputs() {
  absl::StatusOr<Graph> graph = Parse(kGraph);
  std::vector<HostTensor> inputs;
  for (NodeId id : graph->inputs()) inputs.push_back(HostTensor::Random(graph->type(id), id.value));
  return inputs;
}

std::vector<HostTensor> RunProgram(const kernel::Program& program, const HostProgram& host) {
  absl::StatusOr<std::vector<HostTensor>> out = Execute(program, host.kernels, Inputs());
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<HostTensor>{};
}

void ExpectBitwiseEqual(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].BitwiseEqual(b[i])) << "output " << i;
}

std::string FreshDir(const std::string& name) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

// File name -> contents.
std::map<std::string, std::string> Files(const std::string& dir) {
  std::map<std::string, std::string> files;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    absl::StatusOr<std::string> text = ReadFileToString(entry.path().string());
    EXPECT_TRUE(text.ok());
    files[entry.path().filename().string()] = text.ok() ? *text : "";
  }
  return files;
}

HostCompileOptions WithDisk(DiskKernelCache* disk, int threads = 0) {
  HostCompileOptions options;
  options.disk_cache = disk;
  options.threads = threads;
  return options;
}

class HostCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override { KernelCache::Global().Clear(); }
};

TEST_F(HostCompilerTest, SameMachineCodeWhateverTheThreadCount) {
  const kernel::Program program = Lower();
  DiskKernelCache one(FreshDir("one_thread"), DiskKernelCache::kDefaultMaxBytes);
  DiskKernelCache four(FreshDir("four_threads"), DiskKernelCache::kDefaultMaxBytes);
  absl::StatusOr<HostProgram> a = CompileForHost(program, WithDisk(&one, 1));
  ASSERT_TRUE(a.ok()) << a.status();
  KernelCache::Global().Clear();
  absl::StatusOr<HostProgram> b = CompileForHost(program, WithDisk(&four, 4));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->threads, 1);
  EXPECT_EQ(b->threads, 4);
  // One object per distinct kernel (the repeated one is compiled once), each
  // the same bytes.
  const std::map<std::string, std::string> files = Files(one.dir());
  ASSERT_EQ(program.kernels.size(), 4u);
  EXPECT_EQ(Compiled(*a), 3);
  EXPECT_EQ(a->timings[3].source, "duplicate");
  EXPECT_EQ(files.size(), 3u);
  EXPECT_EQ(files, Files(four.dir()));
  ExpectBitwiseEqual(RunProgram(program, *a), RunProgram(program, *b));
}

TEST_F(HostCompilerTest, SecondCompileReadsEveryKernelFromDisk) {
  const kernel::Program program = Lower();
  DiskKernelCache disk(FreshDir("hit"), DiskKernelCache::kDefaultMaxBytes);
  absl::StatusOr<HostProgram> cold = CompileForHost(program, WithDisk(&disk));
  ASSERT_TRUE(cold.ok()) << cold.status();
  EXPECT_EQ(cold->disk_cached_kernels, 0);
  EXPECT_GT(cold->optimize_ms + cold->codegen_ms, 0);
  KernelCache::Global().Clear();
  absl::StatusOr<HostProgram> warm = CompileForHost(program, WithDisk(&disk));
  ASSERT_TRUE(warm.ok()) << warm.status();
  EXPECT_EQ(warm->disk_cached_kernels, 3);
  EXPECT_EQ(Compiled(*warm), 0);
  EXPECT_EQ(warm->cached_kernels, 0);
  EXPECT_EQ(warm->optimize_ms, 0);
  EXPECT_EQ(warm->codegen_ms, 0);
  EXPECT_EQ(disk.hits(), 3);
  ExpectBitwiseEqual(RunProgram(program, *cold), RunProgram(program, *warm));
  // The in-process cache comes first.
  absl::StatusOr<HostProgram> again = CompileForHost(program, WithDisk(&disk));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->cached_kernels, 4);
  EXPECT_EQ(disk.hits(), 3);
}

TEST_F(HostCompilerTest, CorruptEntriesAreRecompiledAndReplaced) {
  const kernel::Program program = Lower();
  DiskKernelCache disk(FreshDir("corrupt"), DiskKernelCache::kDefaultMaxBytes);
  absl::StatusOr<HostProgram> cold = CompileForHost(program, WithDisk(&disk));
  ASSERT_TRUE(cold.ok()) << cold.status();
  const std::vector<HostTensor> expected = RunProgram(program, *cold);
  for (const auto& [name, contents] : Files(disk.dir())) {
    std::string broken = contents;
    broken[broken.size() / 2 + 200] ^= 0x10;  // inside the object's code or tables
    ASSERT_TRUE(WriteStringToFile(absl::StrCat(disk.dir(), "/", name), broken).ok());
  }
  KernelCache::Global().Clear();
  absl::StatusOr<HostProgram> rebuilt = CompileForHost(program, WithDisk(&disk));
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(rebuilt->disk_cached_kernels, 0);
  EXPECT_EQ(disk.corrupt(), 3);
  EXPECT_EQ(Compiled(*rebuilt), 3);
  ExpectBitwiseEqual(expected, RunProgram(program, *rebuilt));
  KernelCache::Global().Clear();
  absl::StatusOr<HostProgram> warm = CompileForHost(program, WithDisk(&disk));
  ASSERT_TRUE(warm.ok()) << warm.status();
  EXPECT_EQ(warm->disk_cached_kernels, 3);
  ExpectBitwiseEqual(expected, RunProgram(program, *warm));
}

TEST_F(HostCompilerTest, OptionsThatChangeCodeChangeTheKey) {
  const kernel::Program program = Lower();
  DiskKernelCache disk(FreshDir("options"), DiskKernelCache::kDefaultMaxBytes);
  ASSERT_TRUE(CompileForHost(program, WithDisk(&disk)).ok());
  size_t files = Files(disk.dir()).size();
  // `all`: the option changes every kernel's code, not only some.
  auto variant = [&](const char* what, bool all, auto change) {
    HostCompileOptions options = WithDisk(&disk);
    change(options);
    KernelCache::Global().Clear();
    absl::StatusOr<HostProgram> host = CompileForHost(program, options);
    ASSERT_TRUE(host.ok()) << what << ": " << host.status();
    if (all) {
      EXPECT_EQ(host->disk_cached_kernels, 0) << what;
    } else {
      EXPECT_LT(host->disk_cached_kernels, 3) << what;
    }
    const size_t now = Files(disk.dir()).size();
    EXPECT_GT(now, files) << what;
    files = now;
  };
  variant("fast_math", false, [](HostCompileOptions& o) { o.codegen.fast_math = true; });
  variant("vector_width", true, [](HostCompileOptions& o) { o.codegen.vector_width = 1; });
  variant("opt_level", true, [](HostCompileOptions& o) { o.opt_level = 1; });
  variant("opt_level 0", true, [](HostCompileOptions& o) { o.opt_level = 0; });
}

TEST_F(HostCompilerTest, WithoutTheCacheNothingIsWritten) {
  const kernel::Program program = Lower();
  DiskKernelCache disk(FreshDir("unused"), DiskKernelCache::kDefaultMaxBytes);
  HostCompileOptions options = WithDisk(&disk);
  options.use_cache = false;
  options.keep_text = true;
  absl::StatusOr<HostProgram> host = CompileForHost(program, options);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE(Files(disk.dir()).empty());
  EXPECT_EQ(host->cached_kernels, 0);
  EXPECT_EQ(KernelCache::Global().size(), 0u);
  // Every kernel compiled, the repeated one too, and named in the dumps.
  for (const HostKernelTiming& t : host->timings) EXPECT_EQ(t.source, "compiled") << t.name;
  for (const kernel::Kernel& k : program.kernels) {
    EXPECT_NE(host->ir_before.find(absl::StrCat("@", k.name, "(")), std::string::npos) << k.name;
  }
  ExpectBitwiseEqual(RunProgram(program, *host), RunProgram(program, *CompileForHost(program, WithDisk(nullptr))));
}

}  // namespace
}  // namespace rk::compiler::cpu
