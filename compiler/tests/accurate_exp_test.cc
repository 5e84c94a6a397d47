// EmitAccurateExpF32 (accurate_exp.h) inside an optimized, JIT-compiled loop,
// against std::exp: a sweep over the whole finite range to 1 ulp, the special
// values, and a check that the loop vectorized.
#include "compiler/llvm_ir/accurate_exp.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "compiler/cpu/codegen/jit.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "compiler/ir/parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

namespace rk::compiler {
namespace {

using ExpLoop = void (*)(const float*, float*, int64_t);

// for (i = 0; i < n; ++i) out[i] = exp(in[i]), optimized like a kernel.
struct CompiledLoop {
  std::shared_ptr<cpu::JitCode> code;
  ExpLoop fn = nullptr;
  std::string optimized_ir;
};

CompiledLoop CompileExpLoop() {
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("exp_test", context);
  llvm::IRBuilder<> b(context);
  auto* type = llvm::FunctionType::get(
      b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "rk_exp_loop", *module);
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(1, llvm::Attribute::NoAlias);
  auto* entry = llvm::BasicBlock::Create(context, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(context, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(context, "exit", fn);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(fn->getArg(2), b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* x = b.CreateLoad(b.getFloatTy(), b.CreateInBoundsGEP(b.getFloatTy(), fn->getArg(0), i));
  b.CreateStore(llvm_ir::EmitAccurateExpF32(b, x), b.CreateInBoundsGEP(b.getFloatTy(), fn->getArg(1), i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1), "", true, true);
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(2)), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();

  CompiledLoop out;
  EXPECT_TRUE(cpu::PrepareForHost(*module).ok());
  EXPECT_TRUE(cpu::OptimizeModule(*module, cpu::kKernelPipeline).ok());
  llvm::raw_string_ostream os(out.optimized_ir);
  module->print(os, nullptr);
  os.flush();
  absl::StatusOr<std::string> object = cpu::EmitObject(*module, /*fast_codegen=*/false);
  EXPECT_TRUE(object.ok()) << object.status();
  if (!object.ok()) return out;
  absl::StatusOr<std::shared_ptr<cpu::JitCode>> code = cpu::JitCode::Link({*object}, {"rk_exp_loop"});
  EXPECT_TRUE(code.ok()) << code.status();
  if (!code.ok()) return out;
  out.code = *code;
  out.fn = reinterpret_cast<ExpLoop>((*code)->address(0));
  return out;
}

// Distance in units in the last place between two non-NaN floats.
int64_t UlpDistance(float a, float b) {
  auto ordered = [](float f) {
    const int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? int64_t{std::numeric_limits<int32_t>::min()} - i : int64_t{i};
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

const CompiledLoop& Loop() {
  static const CompiledLoop* const loop = new CompiledLoop(CompileExpLoop());
  return *loop;
}

TEST(AccurateExpTest, WithinOneUlpOfStdExpOverTheWholeRange) {
  ASSERT_NE(Loop().fn, nullptr);
  // Every 61st float bit pattern from -110 to 90 (about 35M values), covering
  // overflow, subnormal results and the underflow to zero.
  std::vector<float> in;
  const uint32_t neg_end = std::bit_cast<uint32_t>(-110.0f);
  for (uint32_t bits = 0x80000000u; bits <= neg_end; bits += 61) in.push_back(std::bit_cast<float>(bits));
  const uint32_t pos_end = std::bit_cast<uint32_t>(90.0f);
  for (uint32_t bits = 0; bits <= pos_end; bits += 61) in.push_back(std::bit_cast<float>(bits));
  std::vector<float> out(in.size());
  Loop().fn(in.data(), out.data(), static_cast<int64_t>(in.size()));
  int64_t worst = 0;
  float worst_x = 0;
  int64_t off_by_one = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const float want = static_cast<float>(std::exp(static_cast<double>(in[i])));
    const int64_t d = UlpDistance(out[i], want);
    if (d > worst) {
      worst = d;
      worst_x = in[i];
    }
    off_by_one += d == 1;
  }
  EXPECT_LE(worst, 1) << "at x = " << worst_x;
  // Correctly rounded but for values within ~1e-11 of a rounding boundary.
  EXPECT_LT(off_by_one, static_cast<int64_t>(in.size() / 10000)) << off_by_one << " of " << in.size();
}

TEST(AccurateExpTest, SpecialValues) {
  ASSERT_NE(Loop().fn, nullptr);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float max_arg = 88.72283f;  // largest x with a finite f32 exp
  std::vector<float> in = {0.0f, -0.0f, inf, -inf, nan, 1.0f, max_arg, 88.7229f, 1000.0f,
                           -87.33654f, -103.0f, -103.98f, -1000.0f, 1e-30f, -1e-30f};
  std::vector<float> out(in.size());
  Loop().fn(in.data(), out.data(), static_cast<int64_t>(in.size()));
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 1.0f);
  EXPECT_EQ(out[2], inf);
  EXPECT_EQ(out[3], 0.0f);
  EXPECT_TRUE(std::isnan(out[4]));
  EXPECT_EQ(out[5], 2.7182817f);
  EXPECT_TRUE(std::isfinite(out[6]));
  EXPECT_LE(UlpDistance(out[6], std::exp(max_arg)), 1);
  EXPECT_EQ(out[7], inf);
  EXPECT_EQ(out[8], inf);
  EXPECT_LE(UlpDistance(out[9], std::exp(-87.33654f)), 1) << "smallest normal results";
  EXPECT_GT(out[10], 0.0f) << "subnormal result";
  EXPECT_LE(UlpDistance(out[10], std::exp(-103.0f)), 1);
  EXPECT_LE(UlpDistance(out[11], std::exp(-103.98f)), 1);
  EXPECT_EQ(out[12], 0.0f);
  EXPECT_EQ(out[13], 1.0f);
  EXPECT_EQ(out[14], 1.0f);
}

TEST(AccurateExpTest, TheLoopVectorizes) {
  ASSERT_NE(Loop().fn, nullptr);
  EXPECT_NE(Loop().optimized_ir.find("x double>"), std::string::npos)
      << "no vector f64 arithmetic in:\n" << Loop().optimized_ir;
  EXPECT_EQ(Loop().optimized_ir.find("expf"), std::string::npos);
}

// End to end: big kernels use the inline exp, small ones expf; both agree
// with the reference interpreter to f32 rounding.
std::string OptimizedIr(const std::string& text, const std::string& dir) {
  absl::StatusOr<Graph> graph = Parse(text);
  EXPECT_TRUE(graph.ok()) << graph.status();
  CompileOptions options;
  options.dump_dir = dir;
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  EXPECT_TRUE(exe.ok()) << exe.status();
  std::ifstream in(dir + "/llvm_after_opt.ll");
  std::stringstream ir;
  ir << in.rdbuf();
  return ir.str();
}

TEST(AccurateExpTest, BigKernelsInlineItAndSmallOnesCallExpf) {
  const std::string big =
      "graph @g(%x: f32[256,512]) {\n %y = exp(%x) : f32[256,512]\n return %y\n}";
  const std::string small = "graph @g(%x: f32[8,64]) {\n %y = exp(%x) : f32[8,64]\n return %y\n}";
  const std::string big_ir = OptimizedIr(big, ::testing::TempDir() + "/exp_big");
  ASSERT_FALSE(big_ir.empty());
  EXPECT_EQ(big_ir.find("@expf"), std::string::npos);
  EXPECT_NE(big_ir.find("x double>"), std::string::npos) << "vectorized";
  const std::string small_ir = OptimizedIr(small, ::testing::TempDir() + "/exp_small");
  EXPECT_NE(small_ir.find("@expf"), std::string::npos);
  RandomSpec spec;
  spec.low = -90;
  spec.high = 90;
  for (const char* text :
       {"graph @g(%x: f32[256,512]) {\n %y = exp(%x) : f32[256,512]\n return %y\n}",
        "graph @g(%x: f32[256,512]) {\n %y = sigmoid(%x) : f32[256,512]\n return %y\n}",
        "graph @g(%x: bf16[256,512]) {\n %y = exp(%x) : bf16[256,512]\n return %y\n}"}) {
    const std::string t(text);
    const double rtol = t.find("bf16") != std::string::npos ? 8e-3 : 2.4e-7;  // 1 ulp
    absl::StatusOr<std::string> mismatch = CompareWithReference(t, {}, rtol, spec);
    ASSERT_TRUE(mismatch.ok()) << mismatch.status();
    EXPECT_EQ(*mismatch, "") << t;
  }
}

}  // namespace
}  // namespace rk::compiler
