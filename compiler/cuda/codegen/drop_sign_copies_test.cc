#include "compiler/cuda/codegen/drop_sign_copies.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace rk::compiler::cuda {
namespace {

struct Rewritten {
  int count = 0;
  std::string text;
};

Rewritten RunOn(const std::string& ir) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(ir, error, context);
  EXPECT_NE(module, nullptr) << error.getMessage().str();
  if (module == nullptr) return {};
  Rewritten out;
  out.count = DropSignCopies(*module);
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
  llvm::raw_string_ostream os(out.text);
  module->print(os, nullptr);
  return out;
}

constexpr char kDeclarations[] = R"(
declare float @llvm.copysign.f32(float, float)
declare float @llvm.fabs.f32(float)
declare float @llvm.nvvm.fabs.f(float)
declare float @llvm.nvvm.ex2.approx.ftz.f(float)
)";

TEST(DropSignCopiesTest, CopyFromAScaledAbsoluteValueBecomesFabs) {
  // erf's tail as gelu calls it: copysign(1 - 2^q, |x| * 0.7071).
  Rewritten r = RunOn(std::string(kDeclarations) + R"(
define float @f(float %x, float %q) {
  %a = call float @llvm.fabs.f32(float %x)
  %t = fmul float %a, 0x3FE6A09E60000000
  %again = call float @llvm.nvvm.fabs.f(float %t)
  %e = call float @llvm.nvvm.ex2.approx.ftz.f(float %q)
  %d = fsub float 1.0, %e
  %r = call float @llvm.copysign.f32(float %d, float %t)
  %s = fadd float %r, %again
  ret float %s
})");
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.text.find("call float @llvm.copysign"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("fabs.f32(float %d)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("fadd float %1, %t"), std::string::npos) << r.text;
}

TEST(DropSignCopiesTest, ValuesOfUnknownSignKeepTheirSignOperations) {
  Rewritten r = RunOn(std::string(kDeclarations) + R"(
define float @f(float %x, float %y, i1 %c) {
  %neg = fmul float %x, -0.5
  %r1 = call float @llvm.copysign.f32(float %y, float %neg)
  %a = call float @llvm.fabs.f32(float %x)
  %diff = fsub float %a, %y
  %r2 = call float @llvm.fabs.f32(float %diff)
  %negzero = select i1 %c, float %a, float -0.0
  %r3 = call float @llvm.copysign.f32(float %y, float %negzero)
  %s1 = fadd float %r1, %r2
  %s2 = fadd float %s1, %r3
  ret float %s2
})");
  EXPECT_EQ(r.count, 0) << r.text;
}

TEST(DropSignCopiesTest, SignIsTrackedThroughSelectsAndConversions) {
  Rewritten r = RunOn(std::string(kDeclarations) + R"(
define float @f(half %h, float %x, i1 %c) {
  %a = call float @llvm.fabs.f32(float %x)
  %e = call float @llvm.nvvm.ex2.approx.ftz.f(float %x)
  %p = select i1 %c, float %a, float %e
  %w = fpext half 0xH3C00 to float
  %prod = fmul float %p, %w
  %r = call float @llvm.copysign.f32(float %x, float %prod)
  ret float %r
})");
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.text.find("call float @llvm.copysign"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("call float @llvm.fabs.f32(float %x)"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace rk::compiler::cuda
