// PTX generation without a GPU: every kernel form, dtype handling, libdevice
// binding, faults and the target arch, checked on the PTX text.
#include "compiler/cuda/codegen/ptx_compiler.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

constexpr char kSoftmax[] = R"(graph @g(%x: f32[64,1024]) {
  %y = softmax(%x) {axis=1} : f32[64,1024]
  return %y
})";

TEST(PtxCompilerTest, ElementwiseChainIsOneGridStrideKernel) {
  PtxProgram p = Ptx(R"(graph @g(%x: f32[512,384], %b: f32[384]) {
    %a = add(%x, %b) : f32[512,384]
    %r = relu(%a) : f32[512,384]
    %m = mul(%r, %x) : f32[512,384]
    return %m
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kGridStride);
  EXPECT_EQ(p.launches[0].work, 512 * 384 / 4);  // four consecutive points a thread
  EXPECT_EQ(p.launches[0].block[0], 256u);
  EXPECT_TRUE(absl::StrContains(p.ptx, ".visible .entry rk_k0(")) << p.ptx;
  EXPECT_TRUE(absl::StrContains(p.ptx, ".target sm_90"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "%ctaid.x"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "%nctaid.x"));  // grid-stride
  // Read-only inputs through the non-coherent cache, 16 bytes at a time.
  EXPECT_TRUE(absl::StrContains(p.ptx, "ld.global.nc.v4.f32")) << p.ptx;
  EXPECT_FALSE(absl::StrContains(p.ptx, "ld.global.nc.f32")) << p.ptx;
  EXPECT_TRUE(absl::StrContains(p.ptx, "st.global.v4.f32"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "max.NaN.f32") || absl::StrContains(p.ptx, "max.f32"));
}

// x -> tanh(x * y + y) repeated `links` times over f32[1024,256].
std::string TanhChain(int links) {
  std::string text = "graph @g(%x: f32[1024,256], %y: f32[1024,256]) {\n";
  std::string prev = "%x";
  for (int i = 0; i < links; ++i) {
    absl::StrAppend(&text, "  %m", i, " = mul(", prev, ", %y) : f32[1024,256]\n", "  %a", i,
                    " = add(%m", i, ", %y) : f32[1024,256]\n", "  %t", i, " = tanh(%a", i,
                    ") : f32[1024,256]\n");
    prev = absl::StrCat("%t", i);
  }
  return absl::StrCat(text, "  return ", prev, "\n}");
}

TEST(PtxCompilerTest, LongElementwiseBodiesUnrollFewerPoints) {
  // Three value ops a link: 4 points a thread up to kMaxUnrolledOps, then 2, then 1.
  const int64_t points = 1024 * 256;
  EXPECT_EQ(Ptx(TanhChain(10)).launches.at(0).work, points / 4);
  EXPECT_EQ(Ptx(TanhChain(30)).launches.at(0).work, points / 2);
  const PtxProgram long_chain = Ptx(TanhChain(100));
  EXPECT_EQ(long_chain.launches.at(0).work, points);
  EXPECT_EQ(Count(long_chain.ptx, "ld.global.nc.v"), 0) << long_chain.ptx.substr(0, 4000);
  // One body, not four: one tanh expansion (one ex2) a link.
  const int ex2 = Count(long_chain.ptx, "ex2.approx");
  EXPECT_GT(ex2, 0);
  EXPECT_LE(ex2, 100);
}

TEST(PtxCompilerTest, SoftmaxRowsReduceWithWarpShuffles) {
  // max, then sum + divide: one row group. Rows of 1024 are warp rows
  // (warp_rows.h): 8 warps a block, a row each, combining by shuffles only.
  PtxProgram p = Ptx(kSoftmax);
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kRowReduction);
  EXPECT_EQ(p.launches[0].work, 64);
  EXPECT_EQ(p.launches[0].block[0], 256u);
  EXPECT_EQ(p.launches[0].rows_per_block, 8);
  EXPECT_TRUE(absl::StrContains(p.ptx, "shfl.sync.bfly.b32"));
  EXPECT_FALSE(absl::StrContains(p.ptx, "bar.sync"));
  EXPECT_FALSE(absl::StrContains(p.ptx, ".shared"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "ex2.approx") || absl::StrContains(p.ptx, "__nv_expf") ||
              absl::StrContains(p.ptx, "fma.rn.f32"));  // libdevice expf, inlined
  // Longer rows: a block per row, combined across warps in shared memory.
  PtxProgram wide = Ptx(R"(graph @g(%x: f32[64,2048]) {
    %y = softmax(%x) {axis=1} : f32[64,2048]
    return %y
  })");
  ASSERT_EQ(wide.launches.size(), 1u);
  EXPECT_EQ(wide.launches[0].block[0], 256u);  // 2048 elements: 8 a thread
  EXPECT_EQ(wide.launches[0].rows_per_block, 1);
  EXPECT_EQ(wide.launches[0].grid[0], 0u);  // chosen at launch
  EXPECT_TRUE(absl::StrContains(wide.ptx, "shfl.sync.bfly.b32"));
  EXPECT_TRUE(absl::StrContains(wide.ptx, "bar.sync"));
  EXPECT_TRUE(absl::StrContains(wide.ptx, ".shared"));
}

TEST(PtxCompilerTest, RowGroupReadsTheRowOnce) {
  // The thread's elements are loaded once, 16 bytes at a time, and serve the
  // max, the sum and the divide; the output goes out 16 bytes wide. Warp
  // rows of 1024: 32 elements a lane, 8 loads.
  PtxProgram p = Ptx(kSoftmax);
  EXPECT_EQ(Count(p.ptx, "ld.global.nc.v4.f32"), 8) << p.ptx;
  EXPECT_EQ(Count(p.ptx, "ld.global.nc.f32"), 0) << p.ptx;
  EXPECT_EQ(Count(p.ptx, "st.global.v4.f32"), 8) << p.ptx;
  // Long rows: at most 256 threads, 16 elements each.
  PtxProgram wide = Ptx(R"(graph @g(%x: f32[32,4096]) {
    %y = softmax(%x) {axis=1} : f32[32,4096]
    return %y
  })");
  ASSERT_EQ(wide.launches.size(), 1u);
  EXPECT_EQ(wide.launches[0].block[0], 256u);
  EXPECT_EQ(Count(wide.ptx, "ld.global.nc.v4.f32"), 4) << wide.ptx;
  EXPECT_EQ(Count(wide.ptx, "st.global.v4.f32"), 4) << wide.ptx;
  // Shared partials are 16-byte aligned: the vectorizer reads them 16 bytes
  // at a time (a misaligned address on the GPU otherwise).
  EXPECT_TRUE(absl::StrContains(wide.ptx, ".shared")) << wide.ptx;
  EXPECT_FALSE(absl::StrContains(wide.ptx, ".shared .align 4")) << wide.ptx;
  EXPECT_FALSE(absl::StrContains(wide.ptx, ".shared .align 8")) << wide.ptx;
  // layer_norm: mean, then variance + normalize, also one kernel.
  PtxProgram ln = Ptx(R"(graph @g(%x: f32[300,2560], %w: f32[2560], %b: f32[2560]) {
    %y = layer_norm(%x, %w, %b) {axis=1, eps=1e-5} : f32[300,2560]
    return %y
  })");
  ASSERT_EQ(ln.launches.size(), 1u);
  EXPECT_EQ(ln.launches[0].block[0], 160u);  // 2560 / 4 / 4: a multiple of 32
}

std::string RowGroupGraph(const std::string& op, const std::string& dtype, int64_t rows,
                          int64_t cols) {
  const std::string x = absl::StrCat(dtype, "[", rows, ",", cols, "]");
  const std::string v = absl::StrCat(dtype, "[", cols, "]");
  if (op == "softmax") {
    return absl::StrCat("graph @g(%x: ", x, ") {\n %y = softmax(%x) {axis=1} : ", x,
                        "\n return %y\n}");
  }
  if (op == "rms_norm") {
    return absl::StrCat("graph @g(%x: ", x, ", %w: ", v, ") {\n %y = rms_norm(%x, %w) ",
                        "{axis=1, eps=1e-5} : ", x, "\n return %y\n}");
  }
  return absl::StrCat("graph @g(%x: ", x, ", %w: ", v, ", %b: ", v, ") {\n %y = ", op,
                      "(%x, %w, %b) {axis=1, eps=1e-5} : ", x, "\n return %y\n}");
}

TEST(PtxCompilerTest, ShortRowGroupsRunAWarpPerRow) {
  // warp_rows.h: 8 warps a block, a row each, a grid covering the rows; no
  // barrier and no shared memory; each lane loads its 24 elements 16 bytes
  // at a time, once for all stages; the first stage's per-row result (mean,
  // max) reaches the second in registers, so nothing but the row (and the
  // weight and bias) is loaded.
  struct Case {
    const char* op;
    const char* dtype;
    int vector_loads;   // row, weight, bias
    int vector_stores;  // output
  };
  for (const Case& c : {Case{"layer_norm", "bf16", 9, 3}, Case{"layer_norm", "f32", 18, 6},
                        Case{"softmax", "bf16", 3, 3}, Case{"softmax", "f32", 6, 6}}) {
    SCOPED_TRACE(absl::StrCat(c.op, " ", c.dtype));
    PtxProgram p = Ptx(RowGroupGraph(c.op, c.dtype, 65536, 768));
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunch& l = p.launches[0];
    EXPECT_EQ(l.form, KernelForm::kRowReduction);
    EXPECT_EQ(l.rows_per_block, 8);
    EXPECT_EQ(l.block, (std::array<uint32_t, 3>{256, 1, 1}));
    EXPECT_EQ(l.grid, (std::array<uint32_t, 3>{8192, 1, 1}));
    EXPECT_TRUE(absl::StrContains(PrintLaunches(p.launches),
                                  "row_reduction  block=(256,1,1)  grid=(8192,1,1)  work=65536"))
        << PrintLaunches(p.launches);
    EXPECT_TRUE(absl::StrContains(PrintLaunches(p.launches), "rows_per_block=8"));
    EXPECT_TRUE(absl::StrContains(p.ptx, "shfl.sync.bfly.b32"));
    EXPECT_FALSE(absl::StrContains(p.ptx, "bar.sync")) << p.ptx;
    EXPECT_FALSE(absl::StrContains(p.ptx, "barrier")) << p.ptx;
    EXPECT_FALSE(absl::StrContains(p.ptx, "bar.warp.sync")) << p.ptx;
    EXPECT_FALSE(absl::StrContains(p.ptx, ".shared")) << p.ptx;
    EXPECT_EQ(Count(p.ptx, "ld.global.nc.v4."), c.vector_loads) << p.ptx;
    EXPECT_EQ(Count(p.ptx, "ld.global."), c.vector_loads) << p.ptx;
    EXPECT_EQ(Count(p.ptx, "st.global.v4."), c.vector_stores) << p.ptx;
    // The per-row temp (mean, max) is still written, once per row.
    EXPECT_EQ(Count(p.ptx, "st.global."), c.vector_stores + 1) << p.ptx;
  }
}

TEST(PtxCompilerTest, LongerRowsKeepTheBlockForm) {
  for (const auto& [op, dtype, rows, cols] :
       {std::tuple<const char*, const char*, int, int>{"layer_norm", "bf16", 16384, 4096},
        {"rms_norm", "f32", 512, 1028}, {"softmax", "f16", 64, 1056},
        {"softmax", "f64", 64, 1024}}) {  // 8-byte values: 16 a lane, rows up to 512
    SCOPED_TRACE(absl::StrCat(op, " ", dtype, " ", cols));
    PtxProgram p = Ptx(RowGroupGraph(op, dtype, rows, cols));
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].rows_per_block, 1);
    EXPECT_EQ(p.launches[0].grid[0], 0u);
    EXPECT_TRUE(absl::StrContains(p.ptx, "bar.sync"));
    EXPECT_FALSE(absl::StrContains(PrintLaunches(p.launches), "rows_per_block"));
  }
}

TEST(PtxCompilerTest, WarpRowsTakeRaggedRowsAndEveryReduction) {
  // Rows that are not a multiple of 32 vectors give some lanes one vector
  // fewer; row counts that are not a multiple of 8 leave the last block's
  // extra warps idle. argmax and integer reductions shuffle
  // their index / 32-bit halves.
  const std::string graphs[] = {
      R"(graph @g(%x: f32[37,67]) {
        %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[37]
        return %s
      })",
      R"(graph @g(%x: f16[13,500]) {
        %a = argmax(%x) {axis=1, keepdim=false} : i64[13]
        return %a
      })",
      R"(graph @g(%x: i32[9,40]) {
        %m = reduce_max(%x) {axes=[1], keepdim=true} : i32[9,1]
        return %m
      })",
      R"(graph @g(%x: f64[64,512]) {
        %y = softmax(%x) {axis=1} : f64[64,512]
        return %y
      })",
  };
  const uint32_t grids[] = {5, 2, 2, 8};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(graphs[i]);
    PtxProgram p = Ptx(graphs[i]);
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].form, KernelForm::kRowReduction);
    EXPECT_EQ(p.launches[0].rows_per_block, 8);
    EXPECT_EQ(p.launches[0].grid[0], grids[i]);
    EXPECT_TRUE(absl::StrContains(p.ptx, "shfl.sync.bfly.b32"));
    EXPECT_FALSE(absl::StrContains(p.ptx, "bar.sync"));
    EXPECT_FALSE(absl::StrContains(p.ptx, ".shared"));
  }
  // 1000 bf16 = 125 vectors of 8: four a lane, the fourth clamped into the
  // row (and skipped) on lanes past the end; every access stays 16 bytes.
  PtxProgram ragged = Ptx(RowGroupGraph("layer_norm", "bf16", 4096, 1000));
  ASSERT_EQ(ragged.launches.size(), 1u);
  EXPECT_EQ(ragged.launches[0].rows_per_block, 8);
  EXPECT_GT(Count(ragged.ptx, "ld.global.nc.v4.u32"), 0);
  EXPECT_EQ(Count(ragged.ptx, "ld.global."), Count(ragged.ptx, "ld.global.nc.v4.u32"))
      << ragged.ptx;
  EXPECT_EQ(Count(ragged.ptx, "st.global."), Count(ragged.ptx, "st.global.v4.b32") + 1)
      << ragged.ptx;
  // A float max keeps lane 0's result on every lane (+0 / -0, NaN payloads).
  PtxProgram max = Ptx(R"(graph @g(%x: f32[64,256]) {
    %m = reduce_max(%x) {axes=[1], keepdim=false} : f32[64]
    return %m
  })");
  EXPECT_TRUE(absl::StrContains(max.ptx, "shfl.sync.idx.b32")) << max.ptx;
  // Sums need no broadcast: partners add the same two values.
  EXPECT_FALSE(absl::StrContains(Ptx(graphs[0]).ptx, "shfl.sync.idx"));
}

TEST(PtxCompilerTest, HalfTypeRowGroupsRecomputeTheUpcast) {
  // bf16 softmax lowers to a cast kernel (x to an f32 temp) and two row
  // reductions; the cast is recomputed where it is read: one kernel that
  // reads x 16 bytes at a time and writes no f32 copy.
  PtxProgram p = Ptx(R"(graph @g(%x: bf16[64,4096]) {
    %y = softmax(%x) {axis=1} : bf16[64,4096]
    return %y
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].block[0], 256u);  // 16 elements a thread
  EXPECT_EQ(Count(p.ptx, "ld.global.nc.v4.u32"), 2) << p.ptx;
  EXPECT_EQ(Count(p.ptx, "st.global.v4.f32"), 0) << p.ptx;
  EXPECT_EQ(Count(p.ptx, "st.global.v4.b32"), 2) << p.ptx;
}

TEST(PtxCompilerTest, CrossRowDependenciesKeepKernelsApart) {
  // The sum's prologue reads the max of row j for column j: not row-local.
  PtxProgram p = Ptx(R"(graph @g(%x: f32[64,64]) {
    %m = reduce_max(%x) {axes=[1], keepdim=false} : f32[64]
    %a = add(%x, %m) : f32[64,64]
    %s = reduce_sum(%a) {axes=[1], keepdim=false} : f32[64]
    return %s
  })");
  EXPECT_EQ(p.launches.size(), 2u);
  // Rows of different extents stay apart too.
  PtxProgram q = Ptx(R"(graph @g(%x: f32[64,64], %y: f32[32,64]) {
    %m = reduce_max(%x) {axes=[1], keepdim=false} : f32[64]
    %n = reduce_max(%y) {axes=[1], keepdim=false} : f32[32]
    return %m, %n
  })");
  EXPECT_EQ(q.launches.size(), 2u);
}

TEST(PtxCompilerTest, HalfTypesMoveSixteenBytesAtATime) {
  PtxProgram p = Ptx(R"(graph @g(%x: bf16[256,512], %b: bf16[512]) {
    %a = add(%x, %b) : bf16[256,512]
    %s = sigmoid(%a) : bf16[256,512]
    return %s
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].work, 256 * 512 / 8);
  EXPECT_EQ(Count(p.ptx, "ld.global.nc.v4.u32"), 2) << p.ptx;  // x and b
  EXPECT_EQ(Count(p.ptx, "ld.global.nc.u16"), 0) << p.ptx;
  EXPECT_TRUE(absl::StrContains(p.ptx, "st.global.v4.b32")) << p.ptx;
}

TEST(PtxCompilerTest, ShortRowsReduceOnOneThread) {
  PtxProgram p = Ptx(R"(graph @g(%x: f32[4096,8]) {
    %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[4096]
    return %s
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kGridStride);
  EXPECT_FALSE(absl::StrContains(p.ptx, "shfl.sync"));
}

TEST(PtxCompilerTest, FullReductionAndArgmaxUseOneBlock) {
  PtxProgram sum = Ptx(R"(graph @g(%x: f32[300,70]) {
    %s = reduce_sum(%x) {axes=[0,1], keepdim=false} : f32[]
    return %s
  })");
  ASSERT_EQ(sum.launches.size(), 1u);
  EXPECT_EQ(sum.launches[0].form, KernelForm::kRowReduction);
  EXPECT_EQ(sum.launches[0].work, 1);
  EXPECT_TRUE(absl::StrContains(sum.ptx, "add.rn.f64") || absl::StrContains(sum.ptx, "add.f64"))
      << sum.ptx;  // f64 accumulation by default
  PtxProgram argmax = Ptx(R"(graph @g(%x: f16[16,500]) {
    %a = argmax(%x) {axis=1, keepdim=false} : i64[16]
    return %a
  })");
  ASSERT_EQ(argmax.launches.size(), 1u);
  EXPECT_EQ(argmax.launches[0].form, KernelForm::kRowReduction);
}

TEST(PtxCompilerTest, MatmulIsTiledInSharedMemory) {
  const char* text = R"(graph @g(%a: f32[256,128], %b: f32[128,192]) {
    %c = matmul(%a, %b) : f32[256,192]
    return %c
  })";
  PtxProgram p = Ptx(text);
  ASSERT_EQ(p.launches.size(), 1u);
  const KernelLaunch& l = p.launches[0];
  EXPECT_EQ(l.form, KernelForm::kMatmul);
  EXPECT_EQ(l.block, (std::array<uint32_t, 3>{16, 16, 1}));
  EXPECT_EQ(l.grid, (std::array<uint32_t, 3>{3, 4, 1}));
  EXPECT_TRUE(absl::StrContains(p.ptx, "fma.rn.f64"));  // f64 accumulation by default
  EXPECT_TRUE(absl::StrContains(p.ptx, "ld.shared"));
  // f32 accumulators: a 128x128 tile, 8x8 outputs a thread, read 16 bytes at a time.
  CompileOptions fast;
  fast.fast_math = true;
  PtxProgram f32 = Ptx(text, fast);
  EXPECT_TRUE(absl::StrContains(f32.ptx, "fma.rn.f32"));
  EXPECT_TRUE(absl::StrContains(f32.ptx, "ld.shared.v4.f32"));
  EXPECT_EQ(f32.launches[0].grid, (std::array<uint32_t, 3>{2, 2, 1}));
}

TEST(PtxCompilerTest, BatchedAndTransposedMatmul) {
  PtxProgram p = Ptx(R"(graph @g(%a: bf16[3,40,24], %b: bf16[56,24]) {
    %t = transpose(%b) {perm=[1,0]} : bf16[24,56]
    %c = matmul(%a, %t) : bf16[3,40,56]
    return %c
  })");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kMatmul);
  EXPECT_EQ(p.launches[0].grid, (std::array<uint32_t, 3>{1, 1, 3}));
}

TEST(PtxCompilerTest, HalfTypesAreStoredAs16BitsAndComputedInF32) {
  PtxProgram f16 = Ptx(Unary("tanh", "f16[1000]"));
  EXPECT_TRUE(absl::StrContains(f16.ptx, "cvt.f32.f16"));
  EXPECT_TRUE(absl::StrContains(f16.ptx, "cvt.rn.f16.f32"));
  PtxProgram bf16 = Ptx(Unary("exp", "bf16[1000]"));
  EXPECT_TRUE(absl::StrContains(bf16.ptx, ".u16") || absl::StrContains(bf16.ptx, ".b16"));
}

TEST(PtxCompilerTest, SixteenBitExpAndSigmoidUseHardwareApproximations) {
  for (const char* type : {"bf16[1000]", "f16[1000]"}) {
    SCOPED_TRACE(type);
    EXPECT_TRUE(absl::StrContains(Ptx(Unary("exp", type)).ptx, "ex2.approx.f32"));
    const std::string sigmoid = Ptx(Unary("sigmoid", type)).ptx;
    EXPECT_TRUE(absl::StrContains(sigmoid, "rcp.approx.ftz.f32")) << sigmoid;
    EXPECT_FALSE(absl::StrContains(sigmoid, "rcp.rn.f32")) << sigmoid;
  }
  // f32 keeps libdevice's expf (which scales into ex2.approx.ftz) and IEEE division.
  EXPECT_FALSE(absl::StrContains(Ptx(Unary("exp", "f32[1000]")).ptx, "ex2.approx.f32"));
  EXPECT_TRUE(absl::StrContains(Ptx(Unary("sigmoid", "f32[1000]")).ptx, "rcp.rn.f32"));
}

TEST(PtxCompilerTest, Bf16RoundsInHardwareFromSm80) {
  EXPECT_TRUE(absl::StrContains(Ptx(Unary("tanh", "bf16[1000]")).ptx, "cvt.rn.bf16.f32"));
  GpuOptions sm75;
  sm75.arch = "sm_75";
  EXPECT_FALSE(absl::StrContains(Ptx(Unary("tanh", "bf16[1000]"), {}, sm75).ptx, "cvt.rn.bf16"));
}

TEST(PtxCompilerTest, GeluCallsErfWithoutItsSignCopy) {
  // libdevice's erff ends in copysign(r, x), which the backend expands into a
  // shift of the sign bit and a select; gelu's erf sees |x| / sqrt(2) >= 0.
  const std::string erf = Ptx(Unary("erf", "f32[4096]")).ptx;
  EXPECT_GT(Count(erf, "shr.u32"), 0) << erf;
  const std::string gelu = Ptx(Unary("gelu", "f32[4096]")).ptx;
  EXPECT_EQ(Count(gelu, "shr.u32"), 0) << gelu;
  EXPECT_EQ(Count(gelu, "setp.eq.b32"), 0) << gelu;
}

// Several units of emission: matmuls, elementwise kernels, a row group, a
// long reduction in two passes.
constexpr char kManyKernels[] = R"(graph @g(%x: f32[8,64], %w: f32[64,128], %b: f32[128],
                                          %w2: f32[128,64], %v: f32[8388608]) {
  %h = matmul(%x, %w) : f32[8,128]
  %hb = add(%h, %b) : f32[8,128]
  %a = gelu(%hb) : f32[8,128]
  %s = softmax(%a) {axis=1} : f32[8,128]
  %o = matmul(%s, %w2) : f32[8,64]
  %t = reduce_sum(%v) {axes=[0], keepdim=false} : f32[]
  %y = mul(%o, %t) : f32[8,64]
  return %y
})";

TEST(PtxCompilerTest, UnitsCompileToModulesOfTheirOwn) {
  GpuOptions serial;
  serial.compile_threads = 1;
  GpuOptions four;
  four.compile_threads = 4;
  const PtxProgram one = Ptx(kManyKernels, {}, serial);
  const PtxProgram many = Ptx(kManyKernels, {}, four);
  ASSERT_EQ(one.modules.size(), 1u);
  ASSERT_EQ(many.modules.size(), 4u);
  EXPECT_EQ(many.threads, 4);
  ASSERT_EQ(one.launches.size(), many.launches.size());
  int previous = 0;
  for (size_t i = 0; i < many.launches.size(); ++i) {
    const KernelLaunch& a = one.launches[i];
    const KernelLaunch& b = many.launches[i];
    SCOPED_TRACE(b.entry);
    EXPECT_EQ(a.entry, b.entry);
    EXPECT_EQ(a.form, b.form);
    EXPECT_EQ(a.block, b.block);
    EXPECT_EQ(a.grid, b.grid);
    EXPECT_EQ(a.buffers, b.buffers);
    EXPECT_EQ(a.module, 0);
    // Launch order follows module order; an entry is in its module only.
    EXPECT_GE(b.module, previous);
    previous = b.module;
    ASSERT_LT(b.module, static_cast<int>(many.modules.size()));
    for (size_t m = 0; m < many.modules.size(); ++m) {
      EXPECT_EQ(absl::StrContains(many.modules[m], ".entry " + b.entry + "("),
                static_cast<int>(m) == b.module);
    }
    // Each module is complete PTX.
    EXPECT_TRUE(absl::StrContains(many.modules[b.module], ".target sm_90"));
  }
  EXPECT_EQ(many.launches.back().module + 1, static_cast<int>(many.modules.size()));
  // Compiling on threads is repeatable: the same modules every time.
  EXPECT_EQ(Ptx(kManyKernels, {}, four).modules, many.modules);
}

TEST(PtxCompilerTest, EveryMathFunctionBindsToLibdevice) {
  for (const char* op : {"exp", "log", "tanh", "erf", "sin", "cos", "gelu", "sigmoid", "rsqrt"}) {
    for (const char* type : {"f32[33]", "f64[33]"}) {
      SCOPED_TRACE(absl::StrCat(op, " ", type));
      Ptx(Unary(op, type));
    }
  }
  Ptx(R"(graph @g(%x: f32[9], %y: f32[9]) {
    %p = pow(%x, %y) : f32[9]
    return %p
  })");
  Ptx(R"(graph @g(%x: f64[9], %y: f64[9]) {
    %p = maximum(%x, %y) : f64[9]
    %c = cast(%p) {dtype=i64} : i64[9]
    return %c
  })");
}

TEST(PtxCompilerTest, RoundingOpsUseConversionsAndLibdeviceFmod) {
  for (const char* type : {"f32", "f64", "f16"}) {
    SCOPED_TRACE(type);
    const PtxProgram p = Ptx(absl::StrCat(
        "graph @g(%x: ", type, "[64], %y: ", type, "[64]) {\n",
        "  %f = floor(%x) : ", type, "[64]\n  %c = ceil(%x) : ", type, "[64]\n",
        "  %r = round(%x) : ", type, "[64]\n  %m = mod(%x, %y) : ", type, "[64]\n",
        "  %q = floordiv(%x, %y) : ", type, "[64]\n  return %f, %c, %r, %m, %q\n}"));
    // floor, ceil and round half to even are cvt's rounding modes.
    EXPECT_TRUE(absl::StrContains(p.ptx, ".rmi.")) << p.ptx;
    EXPECT_TRUE(absl::StrContains(p.ptx, ".rpi."));
    EXPECT_TRUE(absl::StrContains(p.ptx, ".rni."));
  }
  Ptx(R"(graph @g(%x: i32[64], %y: i64[64]) {
    %m = mod(%x, %x) : i32[64]
    %q = floordiv(%y, %y) : i64[64]
    %c = clip(%y) {max=3.0, min=-2.0} : i64[64]
    return %m, %q, %c
  })");
}

TEST(PtxCompilerTest, CumsumRowsAndPadCompile) {
  // Each thread scans rows of its own (a grid-stride kernel with a
  // sequential body); pad is a select in an elementwise kernel.
  const PtxProgram p = Ptx(R"(graph @g(%x: f32[64,33], %y: f64[40]) {
    %c = cumsum(%x) {axis=1, exclusive=true, reverse=true} : f32[64,33]
    %p = pad(%c) {pads=[1,2,0,3], value=-1.0} : f32[65,38]
    %s = cumsum(%y) {axis=0, exclusive=false, reverse=false} : f64[40]
    return %p, %s
  })");
  ASSERT_EQ(p.launches.size(), 3u);
  for (const KernelLaunch& l : p.launches) EXPECT_EQ(l.form, KernelForm::kGridStride);
  EXPECT_TRUE(absl::StrContains(p.ptx, "selp.f32") || absl::StrContains(p.ptx, "selp.b32"))
      << p.ptx;
}

TEST(PtxCompilerTest, FaultsChangeTheGeneratedCode) {
  const std::string base = Ptx(kSoftmax).ptx;
  auto with = [&](const std::string& fault) {
    CompileOptions options;
    options.faults = {fault};
    return Ptx(kSoftmax, options).ptx;
  };
  EXPECT_NE(with("reduce_sum:drop_last"), base);
  EXPECT_NE(with("fuse:wrong_index"), base);
  EXPECT_NE(with("exp:accuracy"), base);
  EXPECT_TRUE(absl::StrContains(with("exp:runtime_crash"), "ld.volatile"));
  EXPECT_EQ(with("relu:accuracy"), base);  // no relu in softmax
}

TEST(PtxCompilerTest, ArchIsConfigurable) {
  GpuOptions gpu;
  gpu.arch = "sm_80";
  EXPECT_TRUE(absl::StrContains(Ptx(Unary("neg", "f32[8]"), {}, gpu).ptx, ".target sm_80"));
  absl::StatusOr<kernel::Program> program = LowerToKernelIr(Unary("neg", "f32[8]"));
  ASSERT_TRUE(program.ok());
  gpu.arch = "sm_1234";
  EXPECT_EQ(CompileToPtx(*program, gpu).status().code(), absl::StatusCode::kInvalidArgument);
  gpu.arch = "gfx90a";
  EXPECT_EQ(CompileToPtx(*program, gpu).status().code(), absl::StatusCode::kInvalidArgument);
  // cuda_arch=auto takes the device's own, or the newest older one LLVM knows.
  EXPECT_EQ(NvptxArchFor(8, 0), "sm_80");
  EXPECT_EQ(NvptxArchFor(8, 6), "sm_86");
  EXPECT_EQ(NvptxArchFor(8, 8), "sm_87");
  EXPECT_EQ(NvptxArchFor(9, 0), "sm_90");
  EXPECT_EQ(NvptxArchFor(12, 0), "sm_90");
  EXPECT_EQ(NvptxArchFor(3, 5), "sm_50");
}

TEST(PtxCompilerTest, LayerNormAndConcatCompile) {
  PtxProgram ln = Ptx(R"(graph @g(%x: f32[32,768], %w: f32[768], %b: f32[768]) {
    %y = layer_norm(%x, %w, %b) {axis=1, eps=1e-5} : f32[32,768]
    return %y
  })");
  for (const KernelLaunch& l : ln.launches) EXPECT_EQ(l.form, KernelForm::kRowReduction) << l.entry;
  PtxProgram cat = Ptx(R"(graph @g(%x: f32[4,5], %y: f32[4,7]) {
    %c = concat(%x, %y) {axis=1} : f32[4,12]
    return %c
  })");
  ASSERT_EQ(cat.launches.size(), 1u);
  EXPECT_EQ(cat.launches[0].form, KernelForm::kGridStride);
}

// ptxas (from the CUDA toolkit, when installed) assembles the PTX for sm_90:
// catches PTX the driver would reject, without a GPU.
TEST(PtxCompilerTest, PtxAssemblesWithPtxas) {
  if (!PtxasErrors("", "sm_90").has_value()) GTEST_SKIP() << "no ptxas";
  const std::string graphs[] = {
      kSoftmax,
      RowGroupGraph("layer_norm", "bf16", 65536, 768),
      RowGroupGraph("layer_norm", "f32", 64, 2048),
      R"(graph @g(%a: f16[3,70,33], %b: f16[33,65]) {
        %c = matmul(%a, %b) : f16[3,70,65]
        %r = relu(%c) : f16[3,70,65]
        return %r
      })",
      R"(graph @g(%x: bf16[16,500], %w: bf16[500], %b: bf16[500]) {
        %n = layer_norm(%x, %w, %b) {axis=1, eps=1e-5} : bf16[16,500]
        %a = argmax(%x) {axis=1, keepdim=false} : i64[16]
        %e = erf(%n) : bf16[16,500]
        return %e, %a
      })",
      R"(graph @g(%x: bf16[3,3000001], %y: f32[2,100000]) {
        %a = argmax(%x) {axis=1, keepdim=false} : i64[3]
        %m = reduce_mean(%x) {axes=[1], keepdim=false} : bf16[3]
        %s = softmax(%y) {axis=1} : f32[2,100000]
        return %a, %m, %s
      })",
      R"(graph @g(%x: f64[40,50], %y: i32[40,50]) {
        %c = cast(%x) {dtype=i64} : i64[40,50]
        %s = reduce_max(%y) {axes=[1], keepdim=false} : i32[40]
        %p = pow(%x, %x) : f64[40,50]
        return %c, %s, %p
      })",
  };
  for (const std::string& text : graphs) {
    SCOPED_TRACE(text);
    const PtxProgram program = Ptx(text);
    EXPECT_FALSE(program.modules.empty());
    for (const std::string& module : program.modules) EXPECT_EQ(PtxasErrors(module, "sm_90"), "");
  }
}

}  // namespace
}  // namespace rk::compiler::cuda
