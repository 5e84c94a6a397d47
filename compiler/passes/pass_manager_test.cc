#include "compiler/passes/pass_manager.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

PassContext MustCreate(const CompileOptions& options = {}) {
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  EXPECT_TRUE(context.ok()) << context.status();
  return *std::move(context);
}

constexpr char kModel[] = R"(graph @m(%x: f32[2,3]) {
  %one = full() {dtype=f32, shape=[], value=1.0} : f32[]
  %a = mul(%one, %x) : f32[2,3]
  %s = softmax(%a) {axis=1} : f32[2,3]
  %b = exp(%x) : f32[2,3]
  %c = exp(%x) : f32[2,3]
  %d = add(%b, %c) : f32[2,3]
  %unused = sin(%d) : f32[2,3]
  %t = transpose(%s) {perm=[1,0]} : f32[3,2]
  %u = transpose(%t) {perm=[1,0]} : f32[2,3]
  %y = add(%u, %d) : f32[2,3]
  return %y
})";

constexpr char kModelOptimized[] = R"(graph @m(%x: f32[2,3]) {
  %1 = reduce_max(%x) {axes=[1], keepdim=true} : f32[2,1]
  %2 = sub(%x, %1) : f32[2,3]
  %3 = exp(%2) : f32[2,3]
  %4 = reduce_sum(%3) {axes=[1], keepdim=true} : f32[2,1]
  %s = div(%3, %4) : f32[2,3]
  %b = exp(%x) : f32[2,3]
  %d = add(%b, %b) : f32[2,3]
  %y = add(%s, %d) : f32[2,3]
  return %y
})";

absl::StatusOr<Graph> RunModel(PassContext& context) {
  absl::StatusOr<Graph> graph = Parse(kModel);
  if (!graph.ok()) return graph.status();
  return RunGraphPipeline(*graph, context);
}

std::vector<std::string> PassesIn(const std::vector<PassApplication>& log) {
  std::vector<std::string> passes;
  for (const PassApplication& a : log) passes.push_back(a.pass + ":" + a.detail);
  return passes;
}

TEST(PassManagerTest, PipelineOrderAndLookup) {
  std::vector<std::string> names;
  for (const PassInfo& pass : GraphPipeline()) names.push_back(pass.name);
  EXPECT_THAT(names, ElementsAre("decompose", "canonicalize", "constant_fold", "cse", "dce",
                                 "algebraic_simplify", "layout_simplify", "conv_affine_fold"));
  ASSERT_NE(FindPass("cse"), nullptr);
  EXPECT_TRUE(FindPass("cse")->optional);
  EXPECT_FALSE(FindPass("decompose")->optional);
  EXPECT_EQ(FindPass("fuse_everything"), nullptr);
}

TEST(PassManagerTest, CreateChecksPassNamesAndFaults) {
  CompileOptions options;
  options.disable_passes = {"cse", "nope"};
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  EXPECT_EQ(context.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(context.status().message(), HasSubstr("unknown pass 'nope'; valid passes: "
                                                    "canonicalize, constant_fold, cse"));
  options.disable_passes = {"decompose"};
  EXPECT_THAT(PassContext::Create(options).status().message(), HasSubstr("required"));
  options.disable_passes = {"fuse"};
  EXPECT_TRUE(PassContext::Create(options).ok()) << "later stages can be disabled too";
  options.faults = {"relu:bogus"};
  EXPECT_EQ(PassContext::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PassManagerTest, ShouldApplyNumbersAndCaps) {
  CompileOptions options;
  options.max_pass_applications = 2;
  options.disable_passes = {"dce"};
  PassContext context = MustCreate(options);
  EXPECT_TRUE(*context.ShouldApply("cse", "%1 (exp)"));
  EXPECT_FALSE(*context.ShouldApply("dce", "%2 (exp)")) << "disabled: not numbered";
  EXPECT_TRUE(*context.ShouldApply("canonicalize", "%3 (add)"));
  EXPECT_FALSE(*context.ShouldApply("cse", "%4 (exp)")) << "over the cap";
  EXPECT_FALSE(*context.ShouldApply("cse", "%5 (exp)"));
  EXPECT_EQ(context.requested(), 4);
  ASSERT_EQ(context.log().size(), 2u);
  EXPECT_EQ(context.log()[1].number, 2);
  EXPECT_EQ(context.log()[1].pass, "canonicalize");
  EXPECT_EQ(context.log()[1].detail, "%3 (add)");
  EXPECT_TRUE(context.IsDisabled("dce"));
  EXPECT_FALSE(context.IsDisabled("cse"));
}

TEST(PassManagerTest, OptLevelZeroRefusesEverything) {
  CompileOptions options;
  options.opt_level = 0;
  PassContext context = MustCreate(options);
  EXPECT_FALSE(*context.ShouldApply("cse", "%1 (exp)"));
  EXPECT_EQ(context.requested(), 0);
  absl::StatusOr<Graph> graph = RunModel(context);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(context.log().empty());
  EXPECT_EQ(graph->num_nodes(), 15) << "only decompose ran";
}

TEST(PassManagerTest, PassFaultFiresOnlyWhenGranted) {
  CompileOptions options;
  options.faults = {"cse:compile_error"};
  options.max_pass_applications = 0;
  PassContext capped = MustCreate(options);
  EXPECT_FALSE(*capped.ShouldApply("cse", "%1 (exp)"));
  options.max_pass_applications = -1;
  PassContext context = MustCreate(options);
  EXPECT_TRUE(*context.ShouldApply("dce", "%1 (exp)"));
  absl::StatusOr<bool> fired = context.ShouldApply("cse", "%2 (exp)");
  EXPECT_EQ(fired.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(fired.status().message(), "injected fault: cse:compile_error");
  PassContext pipeline_context = MustCreate(options);
  EXPECT_EQ(RunModel(pipeline_context).status().message(), "injected fault: cse:compile_error");
}

TEST(PassManagerTest, RunsThePipeline) {
  CompileOptions options;
  options.checked = true;
  PassContext context = MustCreate(options);
  absl::StatusOr<Graph> graph = RunModel(context);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(GraphMatches(*graph, kModelOptimized));
  EXPECT_THAT(PassesIn(context.log()),
              ElementsAre("canonicalize:%a (mul)", "cse:%c (exp) merged into %b",
                          "dce:%unused (sin)", "algebraic_simplify:%a (mul): x*1 -> x",
                          "layout_simplify:%u (transpose): transpose round trip -> x"));
  for (size_t i = 0; i < context.log().size(); ++i) EXPECT_EQ(context.log()[i].number, i + 1);
  ASSERT_EQ(context.timings().size(), GraphPipeline().size());
  EXPECT_EQ(context.timings()[0].pass, "decompose");
  EXPECT_TRUE(context.timings()[0].ran);
  EXPECT_TRUE(context.timings()[0].changed);
  EXPECT_FALSE(context.timings()[2].changed) << "nothing to fold";
}

TEST(PassManagerTest, DumpsInputAndEveryChangingPass) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "pass_manager_dump";
  std::filesystem::remove_all(dir);
  CompileOptions options;
  options.dump_dir = dir.string();
  PassContext context = MustCreate(options);
  ASSERT_TRUE(RunModel(context).ok());
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "passes")) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_THAT(files, ElementsAre("00_input.rk", "01_decompose.rk", "02_canonicalize.rk",
                                 "04_cse.rk", "05_dce.rk", "06_algebraic_simplify.rk",
                                 "07_layout_simplify.rk"));
  std::ifstream last(dir / "passes" / "07_layout_simplify.rk");
  std::stringstream text;
  text << last.rdbuf();
  absl::StatusOr<Graph> dumped = Parse(text.str());
  ASSERT_TRUE(dumped.ok()) << dumped.status();
  EXPECT_TRUE(GraphMatches(*dumped, kModelOptimized));
}

TEST(PassManagerTest, CheckedModeRejectsInvalidInput) {
  Graph graph("bad");
  Node input;
  input.type = TensorType(DType::kF32, Shape({3}));
  graph.AppendNode(input);
  Node exp;
  exp.op = Op::kExp;
  exp.operands = {NodeId(0)};
  exp.type = TensorType(DType::kF32, Shape({4}));
  graph.AddOutput(graph.AppendNode(exp));
  CompileOptions options;
  options.checked = true;
  PassContext context = MustCreate(options);
  absl::StatusOr<Graph> result = RunGraphPipeline(graph, context);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("input graph"));
}

}  // namespace
}  // namespace rk::compiler
