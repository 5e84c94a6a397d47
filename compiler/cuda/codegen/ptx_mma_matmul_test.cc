// The tensor-core matmul form (planning/mma_matmul.h, nvptx_mma_matmul.cc)
// without a GPU: which matmuls take it, their launch shape, the PTX
// instructions, and that ptxas assembles it for sm_80 and sm_90.
#include <array>
#include <cstdlib>
#include <random>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "compiler/cuda/planning/mma_matmul.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

// These tests are about the mma.sync form on sm_80 and sm_90: pinned there
// whatever the wgmma form's default (planning/wgmma_matmul.h; its own tests
// set $REPROKIT_WGMMA themselves). Linked into the whole test binary.
const bool kMmaSyncPinned = [] { return setenv("REPROKIT_WGMMA", "0", 1) == 0; }();

std::string Matmul(const std::string& dtype, int64_t m, int64_t k, int64_t n) {
  return absl::StrCat("graph @g(%a: ", dtype, "[", m, ",", k, "], %b: ", dtype, "[", k, ",", n,
                      "]) {\n %c = matmul(%a, %b) : ", dtype, "[", m, ",", n,
                      "]\n return %c\n}");
}

constexpr char kLinear[] = R"(graph @g(%x: bf16[4,96,64], %w: bf16[80,64], %r: f32[4,96,80]) {
  %t = transpose(%w) {perm=[1,0]} : bf16[64,80]
  %h = matmul(%x, %t) : bf16[4,96,80]
  %g = gelu(%h) : bf16[4,96,80]
  %c = cast(%g) {dtype=f32} : f32[4,96,80]
  %o = add(%c, %r) : f32[4,96,80]
  return %o
})";

// The plan of the program's only matmul kernel, as the backend sees it.
std::optional<MmaPlan> PlanOf(const std::string& text, const CompileOptions& options = {}) {
  absl::StatusOr<kernel::Program> program = LowerToKernelIr(text, options);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return std::nullopt;
  absl::StatusOr<std::unique_ptr<NvptxPlan>> plan = PlanNvptx(*program);
  EXPECT_TRUE(plan.ok()) << plan.status();
  for (size_t k = 0; plan.ok() && k < (*plan)->shapes.size(); ++k) {
    if ((*plan)->shapes[k].form != KernelForm::kMatmul) continue;
    return PlanMmaMatmul((*plan)->program, (*plan)->program.kernels[k], (*plan)->shapes[k].matmul,
                         options.tf32);
  }
  ADD_FAILURE() << "no matmul kernel";
  return std::nullopt;
}

TEST(MmaMatmulPlanTest, ReadsStridesAndLayoutsFromTheIndices) {
  std::optional<MmaPlan> plain = PlanOf(Matmul("bf16", 256, 128, 192));
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->dtype, DType::kBF16);
  EXPECT_EQ(plain->a.row_stride, 128);
  EXPECT_FALSE(plain->b.k_contiguous);
  EXPECT_EQ(plain->b.row_stride, 192);
  std::optional<MmaPlan> linear = PlanOf(kLinear);
  ASSERT_TRUE(linear.has_value());
  EXPECT_TRUE(linear->b.k_contiguous);
  EXPECT_EQ(linear->b.row_stride, 64);
  std::optional<MmaPlan> half = PlanOf(Matmul("f16", 8, 16, 8));
  ASSERT_TRUE(half.has_value());
  EXPECT_EQ(half->dtype, DType::kF16);
}

TEST(MmaMatmulPlanTest, F32TakesTf32OnlyWhenAskedFor) {
  CompileOptions tf32;
  tf32.tf32 = true;
  EXPECT_FALSE(PlanOf(Matmul("f32", 64, 20, 64)).has_value());
  std::optional<MmaPlan> plan = PlanOf(Matmul("f32", 64, 20, 64), tf32);  // chunks of 4
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->dtype, DType::kF32);
  EXPECT_EQ(plan->a.row_stride, 20);
  EXPECT_FALSE(PlanOf(Matmul("f32", 64, 18, 64), tf32).has_value());
  tf32.fast_math = true;  // f32 accumulators: the operands are the loads themselves
  EXPECT_TRUE(PlanOf(Matmul("f32", 64, 20, 64), tf32).has_value());
}

TEST(MmaMatmulPlanTest, KeepsTheSimtTilesWhereChunksDoNotFit) {
  EXPECT_FALSE(PlanOf(Matmul("f32", 64, 64, 64)).has_value());   // f32 operands
  EXPECT_FALSE(PlanOf(Matmul("bf16", 64, 20, 64)).has_value());  // k not whole chunks
  EXPECT_FALSE(PlanOf(Matmul("bf16", 64, 64, 20)).has_value());  // columns not whole chunks
  // A left operand stored with its rows contiguous (k strided).
  EXPECT_FALSE(PlanOf(R"(graph @g(%a: bf16[64,32], %b: bf16[64,64]) {
    %t = transpose(%a) {perm=[1,0]} : bf16[32,64]
    %c = matmul(%t, %b) : bf16[32,64]
    return %c
  })").has_value());
  // Batches 9 * 12 = 108 elements apart: a batch's base is not 16-byte aligned.
  EXPECT_FALSE(PlanOf(R"(graph @g(%a: bf16[3,9,12], %b: bf16[3,12,8]) {
    %c = matmul(%a, %b) : bf16[3,9,8]
    return %c
  })").has_value());
}

// A kernel IR index at the given loop variable values.
int64_t EvalIndex(const kernel::Kernel& k, int32_t id, const std::vector<int64_t>& vars) {
  const kernel::Expr& e = k.exprs[id];
  switch (e.kind) {
    case kernel::ExprKind::kConst: return e.int_value;
    case kernel::ExprKind::kLoopVar: return vars[e.var];
    case kernel::ExprKind::kIndex: {
      const int64_t a = EvalIndex(k, e.a, vars), b = EvalIndex(k, e.b, vars);
      switch (e.index_op) {
        case kernel::IndexOp::kAdd: return a + b;
        case kernel::IndexOp::kMul: return a * b;
        case kernel::IndexOp::kDiv: return a / b;
        case kernel::IndexOp::kMod: return a % b;
      }
      return 0;
    }
    default: ADD_FAILURE() << "not an index expression"; return 0;
  }
}

// Property: on random batched, broadcast and transposed matmuls, every plan's
// claims hold at random points of the kernel's own index expressions: the
// index is base + i * stride + k (left), base + k * stride + j or
// base + j * stride + k (right), with the base a whole number of chunks.
TEST(MmaMatmulPlanTest, PlansAgreeWithTheIndicesAtRandomPoints) {
  std::mt19937_64 rng(2811);
  auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng() % v.size()); };
  int planned = 0;
  for (int round = 0; round < 60; ++round) {
    const int64_t m = pick({1, 5, 16, 40}), k = pick({8, 12, 24, 64}), n = pick({8, 20, 24, 136});
    const int64_t b0 = pick({1, 3}), a0 = pick({1, b0}), w0 = pick({1, b0});
    const bool transposed = rng() % 2 == 0;
    const std::string t = "bf16";
    const std::string a_type = absl::StrCat(t, "[", a0, ",", m, ",", k, "]");
    const std::string w_type = transposed ? absl::StrCat(t, "[", w0, ",", n, ",", k, "]")
                                          : absl::StrCat(t, "[", w0, ",", k, ",", n, "]");
    std::string text = absl::StrCat("graph @g(%a: ", a_type, ", %w: ", w_type, ") {\n");
    std::string rhs = "%w";
    if (transposed) {
      absl::StrAppend(&text, " %t = transpose(%w) {perm=[0,2,1]} : ", t, "[", w0, ",", k, ",", n,
                      "]\n");
      rhs = "%t";
    }
    absl::StrAppend(&text, " %c = matmul(%a, ", rhs, ") : ", t, "[", std::max(a0, w0), ",", m, ",",
                    n, "]\n return %c\n}");
    SCOPED_TRACE(text);
    absl::StatusOr<kernel::Program> program = LowerToKernelIr(text);
    ASSERT_TRUE(program.ok()) << program.status();
    absl::StatusOr<std::unique_ptr<NvptxPlan>> nvptx = PlanNvptx(*program);
    ASSERT_TRUE(nvptx.ok()) << nvptx.status();
    for (size_t ki = 0; ki < (*nvptx)->shapes.size(); ++ki) {
      const KernelShape& shape = (*nvptx)->shapes[ki];
      if (shape.form != KernelForm::kMatmul) continue;
      const kernel::Kernel& kernel = (*nvptx)->program.kernels[ki];
      const MatmulPattern& mm = shape.matmul;
      std::optional<MmaPlan> plan = PlanMmaMatmul((*nvptx)->program, kernel, mm);
      if (!plan) continue;
      ++planned;
      for (int point = 0; point < 20; ++point) {
        std::vector<int64_t> vars(kernel.num_vars, 0);
        for (const kernel::Stmt* l : mm.batch_loops) vars[l->var] = rng() % l->extent;
        const int64_t i = mm.i_var >= 0 ? rng() % mm.m : 0, kk = rng() % mm.k, j = rng() % mm.n;
        auto at = [&](int32_t index, int64_t iv, int64_t kv, int64_t jv) {
          std::vector<int64_t> v = vars;
          if (mm.i_var >= 0) v[mm.i_var] = iv;
          v[mm.k_var] = kv;
          v[mm.j_var] = jv;
          return EvalIndex(kernel, index, v);
        };
        const int64_t a_base = at(plan->a.index, 0, 0, 0), b_base = at(plan->b.index, 0, 0, 0);
        EXPECT_EQ(a_base % MmaChunkElements(plan->dtype), 0);
        EXPECT_EQ(b_base % MmaChunkElements(plan->dtype), 0);
        EXPECT_EQ(at(plan->a.index, i, kk, j), a_base + i * plan->a.row_stride + kk);
        const int64_t b_expected = plan->b.k_contiguous ? b_base + j * plan->b.row_stride + kk
                                                        : b_base + kk * plan->b.row_stride + j;
        EXPECT_EQ(at(plan->b.index, i, kk, j), b_expected);
      }
    }
  }
  EXPECT_GT(planned, 10);  // the property is not vacuous
}

TEST(MmaMatmulPtxTest, Bf16AndF16MatmulsRunOnMmaSync) {
  PtxProgram p = Ptx(Matmul("bf16", 256, 128, 192));
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].form, KernelForm::kMatmul);
  EXPECT_EQ(p.launches[0].block, (std::array<uint32_t, 3>{128, 1, 1}));  // 4 warps
  EXPECT_EQ(p.launches[0].grid, (std::array<uint32_t, 3>{4, 1, 1}));  // 2 x 2 tiles of 128
  EXPECT_TRUE(absl::StrContains(p.ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"))
      << p.ptx;
  EXPECT_TRUE(absl::StrContains(p.ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "cp.async.cg.shared.global"));
  EXPECT_TRUE(absl::StrContains(p.ptx, "cp.async.wait_group 1"));
  const std::string f16 = Ptx(Matmul("f16", 256, 128, 192)).ptx;
  EXPECT_TRUE(absl::StrContains(f16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")) << f16;
  // A transposed right operand is read k-contiguous: ldmatrix without .trans.
  const std::string linear = Ptx(kLinear).ptx;
  EXPECT_TRUE(absl::StrContains(linear, "mma.sync.aligned"));
  EXPECT_FALSE(absl::StrContains(linear, ".trans")) << linear;
}

TEST(MmaMatmulPtxTest, Tf32RoundsTheOperandsForM16n8k8) {
  CompileOptions tf32;
  tf32.tf32 = true;
  for (const std::string& text : {Matmul("f32", 256, 128, 192), std::string(R"(graph @g(%x: f32[96,64], %w: f32[80,64]) {
    %t = transpose(%w) {perm=[1,0]} : f32[64,80]
    %h = matmul(%x, %t) : f32[96,80]
    return %h
  })")}) {
    SCOPED_TRACE(text);
    const std::string ptx = Ptx(text, tf32).ptx;
    EXPECT_TRUE(absl::StrContains(ptx, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")) << ptx;
    EXPECT_TRUE(absl::StrContains(ptx, "cvt.rna.tf32.f32"));
    for (const char* arch : {"sm_80", "sm_90"}) {
      if (!PtxasErrors("", arch).has_value()) break;
      GpuOptions gpu;
      gpu.arch = arch;
      for (const std::string& module : Ptx(text, tf32, gpu).modules) {
        EXPECT_EQ(PtxasErrors(module, arch), "");
      }
    }
  }
  CompileOptions off = tf32;
  off.tensor_cores = false;  // tf32 rides on the tensor cores
  EXPECT_FALSE(absl::StrContains(Ptx(Matmul("f32", 256, 128, 192), off).ptx, "mma.sync"));
}

TEST(MmaMatmulPtxTest, OffBeforeSm80AndWhenAskedTo) {
  const std::string text = Matmul("bf16", 256, 128, 192);
  CompileOptions off;
  off.tensor_cores = false;
  PtxProgram simt = Ptx(text, off);
  ASSERT_EQ(simt.launches.size(), 1u);
  EXPECT_EQ(simt.launches[0].block, (std::array<uint32_t, 3>{16, 16, 1}));
  EXPECT_FALSE(absl::StrContains(simt.ptx, "mma.sync"));
  GpuOptions sm75;
  sm75.arch = "sm_75";
  EXPECT_FALSE(absl::StrContains(Ptx(text, {}, sm75).ptx, "mma.sync"));
  const std::string f32 = Ptx(Matmul("f32", 256, 128, 192)).ptx;
  EXPECT_TRUE(absl::StrContains(f32, "fma.rn.f64"));  // f64 accumulation, as before
  EXPECT_FALSE(absl::StrContains(f32, "mma.sync"));
}

TEST(MmaMatmulPtxTest, PtxasAssemblesEveryLayout) {
  if (!PtxasErrors("", "sm_90").has_value()) GTEST_SKIP() << "no ptxas";
  for (const std::string& text : {Matmul("bf16", 256, 128, 192), Matmul("f16", 40, 24, 8),
                                  std::string(kLinear)}) {
    SCOPED_TRACE(text);
    for (const char* arch : {"sm_80", "sm_90"}) {
      GpuOptions gpu;
      gpu.arch = arch;
      const PtxProgram program = Ptx(text, {}, gpu);
      ASSERT_FALSE(program.modules.empty());
      for (const std::string& module : program.modules) EXPECT_EQ(PtxasErrors(module, arch), "");
    }
  }
}

}  // namespace
}  // namespace rk::compiler::cuda
