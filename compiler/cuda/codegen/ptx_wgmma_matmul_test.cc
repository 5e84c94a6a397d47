// The Hopper tensor-core matmul form (planning/wgmma_matmul.h,
// nvptx_wgmma_matmul.cc) without a GPU: which matmuls take it and when, the
// sm_90a promotion, the launch shape and dynamic shared memory, the wgmma
// instructions and their descriptors' layouts, and that ptxas assembles it
// for sm_90a (skipped without ptxas).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "compiler/cuda/planning/wgmma_matmul.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

using ScopedEnv = EnvOverride;

std::string Matmul(const std::string& dtype, int64_t m, int64_t k, int64_t n) {
  return absl::StrCat("graph @g(%a: ", dtype, "[", m, ",", k, "], %b: ", dtype, "[", k, ",", n,
                      "]) {\n %c = matmul(%a, %b) : ", dtype, "[", m, ",", n, "]\n return %c\n}");
}

constexpr char kLinear[] = R"(graph @g(%x: bf16[4,96,64], %w: bf16[80,64], %r: f32[4,96,80]) {
  %t = transpose(%w) {perm=[1,0]} : bf16[64,80]
  %h = matmul(%x, %t) : bf16[4,96,80]
  %g = gelu(%h) : bf16[4,96,80]
  %c = cast(%g) {dtype=f32} : f32[4,96,80]
  %o = add(%c, %r) : f32[4,96,80]
  return %o
})";

// What ptxas prints for `module` for sm_90a, warnings included; nullopt
// without ptxas.
std::optional<std::string> PtxasOutput(const std::string& module) {
  std::string ptxas = "/usr/local/cuda/bin/ptxas";
  if (const char* cuda = std::getenv("CUDA_PATH")) ptxas = std::string(cuda) + "/bin/ptxas";
  if (std::getenv("TEST_TMPDIR") == nullptr || !std::ifstream(ptxas).good()) return std::nullopt;
  // Kept among the test's undeclared outputs, for reading.
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  static int next = 0;
  const std::string path =
      absl::StrCat(dir != nullptr ? dir : std::getenv("TEST_TMPDIR"), "/wgmma_", next++, ".ptx");
  std::ofstream(path) << module;
  FILE* pipe =
      popen(absl::StrCat(ptxas, " -arch=sm_90a -v -o /dev/null '", path, "' 2>&1").c_str(), "r");
  if (pipe == nullptr) return "cannot start ptxas";
  std::string output;
  char buffer[512];
  while (fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  if (pclose(pipe) != 0) output += "\nptxas failed";
  return output;
}

TEST(WgmmaMatmulTest, OnlyWhenEnabledAndOnlyForSm90) {
  const std::string text = Matmul("bf16", 256, 128, 256);
  {
    ScopedEnv off("REPROKIT_WGMMA", "0");
    EXPECT_EQ(WgmmaArch("sm_90"), "sm_90");
    const std::string ptx = Ptx(text).ptx;
    EXPECT_TRUE(absl::StrContains(ptx, "mma.sync.aligned")) << ptx;
    EXPECT_FALSE(absl::StrContains(ptx, "wgmma"));
    EXPECT_TRUE(absl::StrContains(ptx, ".target sm_90\n"));
  }
  ScopedEnv on("REPROKIT_WGMMA", "1");
  EXPECT_EQ(WgmmaArch("sm_90"), "sm_90a");
  EXPECT_EQ(WgmmaArch("sm_80"), "sm_80");
  const PtxProgram p = Ptx(text);
  EXPECT_TRUE(absl::StrContains(p.ptx, ".target sm_90a")) << p.ptx.substr(0, 400);
  EXPECT_TRUE(absl::StrContains(p.ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"));
  EXPECT_FALSE(absl::StrContains(p.ptx, "mma.sync.aligned"));
  GpuOptions sm80;
  sm80.arch = "sm_80";
  EXPECT_FALSE(absl::StrContains(Ptx(text, {}, sm80).ptx, "wgmma"));
  CompileOptions simt;
  simt.tensor_cores = false;
  const std::string simt_ptx = Ptx(text, simt).ptx;
  EXPECT_FALSE(absl::StrContains(simt_ptx, "wgmma"));
  EXPECT_FALSE(absl::StrContains(simt_ptx, "sm_90a"));  // no promotion without tensor cores
  CompileOptions tf32;
  tf32.tf32 = true;  // TF32 stays on mma.sync
  const std::string tf32_ptx = Ptx(Matmul("f32", 256, 128, 256), tf32).ptx;
  EXPECT_TRUE(absl::StrContains(tf32_ptx, "mma.sync.aligned.m16n8k8")) << tf32_ptx;
  EXPECT_FALSE(absl::StrContains(tf32_ptx, "wgmma"));
  // Operands that do not qualify for mma.sync do not take wgmma either, and
  // a program without such a matmul keeps sm_90.
  const std::string odd = Ptx(Matmul("bf16", 64, 20, 64)).ptx;
  EXPECT_FALSE(absl::StrContains(odd, "wgmma"));
  EXPECT_TRUE(absl::StrContains(odd, ".target sm_90\n")) << odd.substr(0, 300);
  EXPECT_TRUE(absl::StrContains(Ptx(Unary("exp", "f32[64,64]")).ptx, ".target sm_90\n"));
}

TEST(WgmmaMatmulTest, LaunchShapeAndDynamicSharedMemory) {
  ScopedEnv on("REPROKIT_WGMMA", "1");
  ScopedEnv tile("REPROKIT_WGMMA_TILE", "m=128,n=128,stages=3,pending=0");
  const PtxProgram p = Ptx(Matmul("bf16", 300, 200, 264));
  ASSERT_EQ(p.launches.size(), 1u);
  const KernelLaunch& l = p.launches[0];
  EXPECT_EQ(l.block, (std::array<uint32_t, 3>{256, 1, 1}));  // 2 warpgroups
  EXPECT_EQ(l.grid, (std::array<uint32_t, 3>{9, 1, 1}));     // 3 x 3 tiles of 128 x 128
  EXPECT_EQ(l.dynamic_shared_bytes, 3u * 32768 + 1024);
  EXPECT_TRUE(absl::StrContains(p.ptx, ".extern .shared")) << p.ptx;
  {
    ScopedEnv wide("REPROKIT_WGMMA_TILE", "m=128,n=256,stages=4,pending=1");
    const PtxProgram w = Ptx(Matmul("f16", 300, 200, 264));
    ASSERT_EQ(w.launches.size(), 1u);
    EXPECT_EQ(w.launches[0].grid, (std::array<uint32_t, 3>{6, 1, 1}));  // 3 x 2 tiles
    EXPECT_EQ(w.launches[0].dynamic_shared_bytes, 4u * (16384 + 32768) + 1024);
    EXPECT_TRUE(absl::StrContains(w.ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"));
    EXPECT_TRUE(absl::StrContains(w.ptx, "wgmma.wait_group.sync.aligned 1;"));
  }
  {
    ScopedEnv bad("REPROKIT_WGMMA_TILE", "n=96");  // malformed: ignored
    EXPECT_FALSE(WgmmaTilingFromEnv().has_value());
  }
  {
    ScopedEnv small("REPROKIT_WGMMA_TILE", "m=64,n=64,stages=4");  // one warpgroup
    const PtxProgram s = Ptx(Matmul("bf16", 300, 200, 264));
    ASSERT_EQ(s.launches.size(), 1u);
    EXPECT_EQ(s.launches[0].block, (std::array<uint32_t, 3>{128, 1, 1}));
    EXPECT_EQ(s.launches[0].grid, (std::array<uint32_t, 3>{25, 1, 1}));  // 5 x 5 tiles
    EXPECT_EQ(s.launches[0].dynamic_shared_bytes, 4u * (8192 + 8192) + 1024);
    EXPECT_TRUE(absl::StrContains(s.ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"));
  }
  // Batches go to grid z, as in the other matmul forms.
  const PtxProgram batched = Ptx(kLinear);
  int matmuls = 0;
  for (const KernelLaunch& launch : batched.launches) {
    if (launch.form != KernelForm::kMatmul) continue;
    ++matmuls;
    EXPECT_EQ(launch.grid, (std::array<uint32_t, 3>{1, 1, 4}));
    EXPECT_GT(launch.dynamic_shared_bytes, 0u);
  }
  EXPECT_EQ(matmuls, 1);
}

// ws=1: a producer warpgroup copies, mbarriers hand the stages over, and
// no block-wide barrier runs in the k loop.
TEST(WgmmaMatmulTest, WarpSpecializedForm) {
  ScopedEnv on("REPROKIT_WGMMA", "1");
  ScopedEnv tile("REPROKIT_WGMMA_TILE", "m=128,n=128,stages=4,pending=1,ws=1");
  const PtxProgram p = Ptx(Matmul("bf16", 300, 200, 264));
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].block, (std::array<uint32_t, 3>{384, 1, 1}));  // 2 + 1 warpgroups
  EXPECT_EQ(p.launches[0].dynamic_shared_bytes, 4u * 32768 + 4 * 16 + 1024);
  EXPECT_EQ(Count(p.ptx, "mbarrier.init.shared::cta.b64"), 8) << p.ptx;
  EXPECT_TRUE(absl::StrContains(p.ptx, "mbarrier.try_wait.parity.shared::cta.b64"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "cp.async.mbarrier.arrive.noinc.shared::cta.b64"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "mbarrier.arrive.shared::cta.b64"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "trap;"));  // a wait that never ends
  EXPECT_EQ(Count(p.ptx, "bar.sync"), 1);          // after the mbarriers' init only
  EXPECT_EQ(Count(p.ptx, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"), 4);
  ScopedEnv wide("REPROKIT_WGMMA_TILE", "n=256,ws=1");  // too many registers: ignored
  EXPECT_FALSE(WgmmaTilingFromEnv().has_value());
}

// tma=1: the producer's first thread loads each stage with
// cp.async.bulk.tensor from two tensor maps the entry takes by value (grid
// constants after the run counter); the launch describes them for the
// runtime. A batched matmul keeps the cp.async producer.
TEST(WgmmaMatmulTest, TmaLoads) {
  ScopedEnv on("REPROKIT_WGMMA", "1");
  ScopedEnv tile("REPROKIT_WGMMA_TILE", "m=128,n=128,stages=4,pending=1,tma=1");
  const PtxProgram p = Ptx(Matmul("bf16", 300, 200, 264));
  ASSERT_EQ(p.launches.size(), 1u);
  const KernelLaunch& l = p.launches[0];
  EXPECT_EQ(l.block, (std::array<uint32_t, 3>{384, 1, 1}));
  ASSERT_EQ(l.tensor_maps.size(), 2u);
  const KernelLaunch::TensorMap& a = l.tensor_maps[0];
  const KernelLaunch::TensorMap& b = l.tensor_maps[1];
  EXPECT_EQ(a.dims, (std::array<uint64_t, 2>{200, 300}));  // [M, K], k contiguous
  EXPECT_EQ(a.row_bytes, 400u);
  EXPECT_EQ(a.box, (std::array<uint32_t, 2>{64, 128}));
  EXPECT_EQ(b.dims, (std::array<uint64_t, 2>{264, 200}));  // [K, N], columns contiguous
  EXPECT_EQ(b.row_bytes, 528u);
  EXPECT_EQ(b.box, (std::array<uint32_t, 2>{64, 64}));
  EXPECT_TRUE(a.bf16);
  EXPECT_EQ(a.offset_bytes, 0);
  // A, and B's two 64-column blocks.
  EXPECT_EQ(Count(p.ptx,
                  "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                  "complete_tx::bytes"),
            3)
      << p.ptx;
  EXPECT_TRUE(absl::StrContains(p.ptx, "mbarrier.arrive.expect_tx.shared::cta.b64"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "cvta.param.u64"));
  EXPECT_TRUE(absl::StrContains(p.ptx, ".param .align 64 .b8"));
  EXPECT_FALSE(absl::StrContains(p.ptx, "cp.async.cg"));  // no cp.async producer
  const std::string linear = R"(graph @g(%x: f16[96,64], %w: f16[80,64]) {
    %t = transpose(%w) {perm=[1,0]} : f16[64,80]
    %h = matmul(%x, %t) : f16[96,80]
    return %h
  })";
  const PtxProgram k = Ptx(linear);
  ASSERT_EQ(k.launches.size(), 1u);
  ASSERT_EQ(k.launches[0].tensor_maps.size(), 2u);
  EXPECT_EQ(k.launches[0].tensor_maps[1].dims, (std::array<uint64_t, 2>{64, 80}));  // [N, K]
  EXPECT_EQ(k.launches[0].tensor_maps[1].box, (std::array<uint32_t, 2>{64, 128}));
  EXPECT_FALSE(k.launches[0].tensor_maps[1].bf16);
  const PtxProgram batched = Ptx(kLinear);
  for (const KernelLaunch& launch : batched.launches) EXPECT_TRUE(launch.tensor_maps.empty());
  EXPECT_TRUE(absl::StrContains(batched.ptx, "cp.async.mbarrier.arrive.noinc"));
}

// Without $REPROKIT_WGMMA_TILE the tile follows the matmul's size: the
// largest of 128 x 128, 128 x 64, 64 x 64 that makes enough blocks for the
// SMs, else the smallest.
TEST(WgmmaMatmulTest, DefaultTileFollowsTheSize) {
  ScopedEnv on("REPROKIT_WGMMA", "1");
  ScopedEnv tile("REPROKIT_WGMMA_TILE", nullptr);
  struct Expected {
    int64_t m, k, n;
    uint32_t threads, blocks;
  };
  for (const Expected& e : {Expected{4096, 4096, 4096, 256, 32 * 16},   // 128 x 256
                            Expected{1536, 64, 1536, 256, 12 * 12},   // 128 x 128
                            Expected{2048, 512, 1024, 256, 16 * 16},  // 128 x 64
                            Expected{1024, 512, 1024, 128, 16 * 16},  // 128 of 128 x 64 too few
                            Expected{128, 768, 3072, 128, 2 * 48},    // 24 of 128 x 64 too few
                            Expected{1, 512, 1000, 128, 16}}) {
    SCOPED_TRACE(absl::StrCat(e.m, "x", e.k, "x", e.n));
    const PtxProgram p = Ptx(Matmul("bf16", e.m, e.k, e.n));
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].block[0], e.threads);
    EXPECT_EQ(p.launches[0].grid[0], e.blocks);
  }
}

TEST(WgmmaMatmulTest, InstructionsAndDescriptorsPerLayout) {
  ScopedEnv on("REPROKIT_WGMMA", "1");
  ScopedEnv tile("REPROKIT_WGMMA_TILE", "m=128,n=128");
  // [K, N] right operand: MN-major, imm-trans-b = 1, 8192-byte leading offset
  // (descriptor bits 16-29 = 8192 >> 4 = 512) and 1024-byte stride (bits
  // 32-45 = 64), 128-byte swizzle (bit 62).
  const std::string mn = Ptx(Matmul("bf16", 256, 128, 256)).ptx;
  EXPECT_EQ(Count(mn, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"), 4) << mn;
  EXPECT_TRUE(absl::StrContains(mn, ", 1, 1, 0, 1;"));
  const uint64_t a_bits = (uint64_t{1} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 62);
  const uint64_t mn_bits = (uint64_t{512} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 62);
  EXPECT_TRUE(absl::StrContains(mn, std::to_string(static_cast<int64_t>(a_bits)))) << mn;
  EXPECT_TRUE(absl::StrContains(mn, std::to_string(static_cast<int64_t>(mn_bits))));
  EXPECT_TRUE(absl::StrContains(mn, "wgmma.fence.sync.aligned;"));
  EXPECT_TRUE(absl::StrContains(mn, "wgmma.commit_group.sync.aligned;"));
  EXPECT_TRUE(absl::StrContains(mn, "wgmma.wait_group.sync.aligned 0;"));
  EXPECT_TRUE(absl::StrContains(mn, "fence.proxy.async.shared::cta;"));
  EXPECT_TRUE(absl::StrContains(mn, "cp.async.cg.shared.global"));
  // [N, K] right operand (a linear layer's weight): K-major, no transpose.
  const std::string k = Ptx(kLinear).ptx;
  EXPECT_EQ(Count(k, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"), 4) << k;
  EXPECT_TRUE(absl::StrContains(k, ", 1, 1, 0, 0;"));
  EXPECT_FALSE(absl::StrContains(k, std::to_string(static_cast<int64_t>(mn_bits))));
  const std::string f16 = Ptx(Matmul("f16", 256, 128, 256)).ptx;
  EXPECT_TRUE(absl::StrContains(f16, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"));
}

TEST(WgmmaMatmulTest, PtxasAssemblesItForSm90a) {
  ScopedEnv on("REPROKIT_WGMMA", "1");
  if (!PtxasOutput("").has_value()) GTEST_SKIP() << "no ptxas";
  for (const char* tile :
       {"", "m=128,n=128,stages=3,pending=0", "m=128,n=256,stages=4,pending=1",
        "m=128,n=128,stages=4,pending=1", "m=64,n=64,stages=4,pending=0",
        "m=64,n=256,stages=3,pending=1", "m=128,n=64,stages=6,pending=1",
        "m=128,n=128,stages=4,pending=1,ws=1", "m=64,n=64,stages=3,pending=0,ws=1",
        "m=128,n=64,stages=6,pending=1,ws=1", "m=128,n=128,stages=4,pending=1,tma=1",
        "m=64,n=64,stages=4,pending=0,tma=1", "m=128,n=256,stages=4,pending=1,tma=1"}) {
    ScopedEnv tiling("REPROKIT_WGMMA_TILE", tile);
    for (const std::string& text : {Matmul("bf16", 256, 128, 192), Matmul("f16", 40, 24, 8),
                                    Matmul("bf16", 4096, 4096, 4096), std::string(kLinear)}) {
      SCOPED_TRACE(absl::StrCat(tile, "\n", text));
      const PtxProgram program = Ptx(text);
      ASSERT_FALSE(program.modules.empty());
      for (const std::string& module : program.modules) {
        std::optional<std::string> out = PtxasOutput(module);
        ASSERT_TRUE(out.has_value());
        EXPECT_FALSE(absl::StrContains(*out, "ptxas failed")) << *out;
        EXPECT_FALSE(absl::StrContains(*out, "rror")) << *out;
        // ptxas serializes wgmmas it cannot prove safe to overlap: correct,
        // but slow; the form is built so that it never has to.
        EXPECT_FALSE(absl::StrContains(*out, "serialized")) << *out;
        for (size_t at = out->find(" bytes spill"); at != std::string::npos;
             at = out->find(" bytes spill", at + 1)) {
          EXPECT_EQ((*out)[at - 1], '0') << *out;  // no spills
          EXPECT_EQ((*out)[at - 2], ' ') << *out;
        }
      }
    }
  }
}

}  // namespace
}  // namespace rk::compiler::cuda
