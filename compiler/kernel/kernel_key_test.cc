// KernelKey (kernel_key.h): the same kernel in different programs has the
// same key; anything an emitter reads changes it; names do not.
#include "compiler/kernel/kernel_key.h"

#include <string>

#include "absl/strings/match.h"
#include "compiler/fusion/fusion.h"
#include "compiler/ir/parser.h"
#include "compiler/kernel/kernel_builder.h"
#include "compiler/options/compile_options.h"
#include "compiler/passes/pass_manager.h"
#include "gtest/gtest.h"

namespace rk::compiler::kernel {
namespace {

Program Lower(const std::string& text, const CompileOptions& options = {}) {
  absl::StatusOr<Graph> graph = Parse(text);
  EXPECT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  EXPECT_TRUE(context.ok()) << context.status();
  absl::StatusOr<Graph> optimized = RunGraphPipeline(*graph, *context);
  EXPECT_TRUE(optimized.ok()) << optimized.status();
  absl::StatusOr<fusion::FusionPlan> plan = fusion::PlanFusion(*optimized, *context);
  EXPECT_TRUE(plan.ok()) << plan.status();
  KernelOptions kernel_options{options.fast_math, options.low_precision, 1, &context->faults()};
  if (options.reduce_order == ReduceOrder::kTree) kernel_options.reduce_order = AccumulationOrder::kTree;
  absl::StatusOr<Program> program = BuildProgram(*optimized, *plan, kernel_options);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *std::move(program) : Program{};
}

// The key of the kernel whose fusion detail mentions `op` (the only one when "").
std::string KeyOf(const Program& program, const std::string& op = "") {
  for (const Kernel& k : program.kernels) {
    if (op.empty() || absl::StrContains(k.detail, op)) return KernelKey(program, k);
  }
  ADD_FAILURE() << "no kernel of " << op;
  return "";
}

constexpr char kSum[] = R"(graph @g(%x: f32[8,64]) {
  %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[8]
  return %s
})";

TEST(KernelKeyTest, SameKernelInAnotherProgramHasTheSameKey) {
  const Program alone = Lower(kSum);
  // Here the sum's buffers have other numbers: an input and a kernel come first.
  const Program among = Lower(R"(graph @g(%w: f32[3,5], %x: f32[8,64]) {
    %n = exp(%w) : f32[3,5]
    %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[8]
    return %n, %s
  })");
  ASSERT_EQ(among.kernels.size(), 2u);
  EXPECT_EQ(KeyOf(alone), KeyOf(among, "reduce_sum"));
  Program renamed = alone;
  renamed.kernels[0].name = "k99";
  renamed.kernels[0].detail = "anything";
  EXPECT_EQ(KeyOf(alone), KeyOf(renamed));
}

TEST(KernelKeyTest, WhatTheEmitterReadsChangesIt) {
  const std::string sum = KeyOf(Lower(kSum));
  std::string bf16 = kSum;
  for (size_t at; (at = bf16.find("f32")) != std::string::npos;) bf16.replace(at, 3, "bf16");
  EXPECT_NE(sum, KeyOf(Lower(bf16)));  // dtypes
  EXPECT_NE(sum, KeyOf(Lower(R"(graph @g(%x: f32[8,65]) {
    %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[8]
    return %s
  })")));  // extents
  EXPECT_NE(sum, KeyOf(Lower(R"(graph @g(%x: f32[8,64]) {
    %s = reduce_max(%x) {axes=[1], keepdim=false} : f32[8]
    return %s
  })")));  // the combine
  CompileOptions fast;
  fast.fast_math = true;
  EXPECT_NE(sum, KeyOf(Lower(kSum, fast)));  // accumulator type and order
  CompileOptions tree;
  tree.reduce_order = ReduceOrder::kTree;
  EXPECT_NE(sum, KeyOf(Lower(kSum, tree)));
  CompileOptions faulty;
  faulty.faults = {"reduce_sum:drop_last"};
  EXPECT_NE(sum, KeyOf(Lower(kSum, faulty)));  // faults live in the kernel IR
  // A constant's value.
  const std::string half = KeyOf(Lower(R"(graph @g(%x: f32[64]) {
    %c = full() {dtype=f32, shape=[64], value=0.5} : f32[64]
    %y = mul(%x, %c) : f32[64]
    return %y
  })"));
  EXPECT_NE(half, KeyOf(Lower(R"(graph @g(%x: f32[64]) {
    %c = full() {dtype=f32, shape=[64], value=0.25} : f32[64]
    %y = mul(%x, %c) : f32[64]
    return %y
  })")));
}

}  // namespace
}  // namespace rk::compiler::kernel
