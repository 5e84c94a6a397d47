#include "repro/triage/triage.h"

#include <string>

#include "absl/strings/match.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using compiler::CompileOptions;

compiler::Graph ParseOrDie(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : compiler::Graph();
}

const compiler::Graph& ReluGraph() {
  static const compiler::Graph* g = new compiler::Graph(ParseOrDie(R"(
graph @g(%x: f32[4]) {
  %y = relu(%x) : f32[4]
  return %y
})"));
  return *g;
}

BackendHello OrtHello(std::vector<std::string> devices = {"cpu"}) {
  BackendHello h;
  h.name = "onnxruntime";
  h.version = "1.30.0 (node)";
  h.devices = std::move(devices);
  h.options = {{"graph_optimization_level", "all", ""}, {"intra_op_num_threads", "0", ""}};
  return h;
}

CompileOptions OrtOptions(const std::string& level) {
  CompileOptions o;
  o.backend = "onnxruntime";
  o.backend_options = {"graph_optimization_level:" + level};
  return o;
}

std::string Level(const CompileOptions& o) {
  for (const std::string& kv : o.backend_options) {
    if (absl::StartsWith(kv, "graph_optimization_level:")) return kv.substr(25);
  }
  return "all";
}

Verdict Accuracy(std::string subkind = "miscompile") {
  Verdict v;
  v.kind = VerdictKind::kAccuracy;
  v.accuracy_subkind = std::move(subkind);
  v.message = "output %y: 1 of 4 elements differ";
  OutputVerdict o;
  o.index = 0;
  o.metrics.judgement = Judgement::kFail;
  o.metrics.max_abs_error = 3;
  v.outputs.push_back(o);
  return v;
}

Verdict Pass() { return Verdict(); }

TEST(PlanProbesTest, OnnxRuntimeLevelsDevicesAndTheBuiltinRoute) {
  BackendHello hello = OrtHello({"cpu", "cuda"});
  std::vector<TriageProbe> probes = PlanProbes(OrtOptions("all"), &hello);
  std::vector<std::string> labels;
  for (const TriageProbe& p : probes) labels.push_back(p.label);
  EXPECT_EQ(labels, (std::vector<std::string>{
                        "as recorded", "graph_optimization_level=disable",
                        "graph_optimization_level=basic", "graph_optimization_level=extended",
                        "graph_optimization_level=all", "device=cuda",
                        "builtin (reprokit's compiler)"}));
  EXPECT_EQ(Level(probes[2].options), "basic");
  EXPECT_EQ(probes[2].options.backend_options.size(), 1u);  // replaced, not added
  EXPECT_EQ(probes[5].options.device, "cuda");
  EXPECT_FALSE(probes[6].options.external());
  EXPECT_TRUE(probes[6].options.backend_options.empty());
}

TEST(PlanProbesTest, BuiltinVariesOptLevelAndDevice) {
  std::vector<TriageProbe> probes = PlanProbes(CompileOptions(), nullptr);
  ASSERT_EQ(probes.size(), 5u);
  EXPECT_EQ(probes[1].label, "opt_level=0");
  EXPECT_EQ(probes[1].options.opt_level, 0);
  EXPECT_EQ(probes[3].options.opt_level, 2);
  EXPECT_EQ(probes[4].label, "device=cuda");
}

TEST(PlanProbesTest, InductorKnobsOnlyWhereDeclaredAndOnTheirDevice) {
  BackendHello hello;
  hello.name = "torch_inductor";
  hello.devices = {"cpu"};
  hello.options = {{"mode", "default", ""},
                   {"fallback_random", "False", ""},
                   {"cpp.simdlen", "None", ""},
                   {"triton.cudagraphs", "False", ""},
                   {"compile_backend", "inductor", ""}};
  CompileOptions recorded;
  recorded.backend = "torch_inductor";
  std::vector<std::string> labels;
  for (const TriageProbe& p : PlanProbes(recorded, &hello)) labels.push_back(p.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"as recorded", "compile_backend=aot_eager",
                                              "compile_backend=inductor", "fallback_random=True",
                                              "cpp.simdlen=1", "builtin (reprokit's compiler)"}));
}

// Judges ORT probes by level: `failing` levels fail with `bad`.
Triage TriageOrt(const std::vector<std::string>& failing, const Verdict& bad,
                 BackendHello hello = OrtHello(), const Verdict& builtin = Pass(),
                 const std::vector<std::string>& failing_devices = {"cpu"}) {
  return RunTriage(ReluGraph(), PlanProbes(OrtOptions("all"), &hello),
                   [&](const CompileOptions& o) -> absl::StatusOr<Verdict> {
                     if (!o.external()) return builtin;
                     bool device_fails = std::find(failing_devices.begin(),
                                                   failing_devices.end(),
                                                   o.device) != failing_devices.end();
                     bool level_fails = std::find(failing.begin(), failing.end(), Level(o)) !=
                                        failing.end();
                     return device_fails && level_fails ? bad : Pass();
                   });
}

TEST(ClassifyTest, OptimizerBugNamesTheLowestFailingLevel) {
  Verdict err;
  err.kind = VerdictKind::kCompileError;
  err.message = "FuseReluClip: Unexpected data type\n";
  Triage t = TriageOrt({"basic", "extended", "all"}, err);
  EXPECT_EQ(t.cls, TriageClass::kOptimizerBug);
  EXPECT_EQ(t.explanation, "fails only with optimizations from level basic");
  EXPECT_TRUE(IsRealFailure(t.cls));
  const std::string table = FormatTriage(t);
  EXPECT_TRUE(absl::StrContains(table, "graph_optimization_level=disable")) << table;
  EXPECT_TRUE(absl::StrContains(table, "compile_error")) << table;
  EXPECT_TRUE(absl::StrContains(table, "class:    optimizer bug")) << table;
  // One line per row: the message's newline is gone.
  EXPECT_TRUE(absl::StrContains(table, "Unexpected data type\n  graph_optimization_level=disable"))
      << table;
}

TEST(ClassifyTest, NonMonotoneLevelsAreListed) {
  Triage t = TriageOrt({"extended"}, Accuracy(), OrtHello());
  // The recorded level (all) passes here, so the repro does not reproduce.
  EXPECT_EQ(t.cls, TriageClass::kDoesNotReproduce);
  t = TriageOrt({"basic", "all"}, Accuracy());
  EXPECT_EQ(t.cls, TriageClass::kOptimizerBug);
  EXPECT_EQ(t.explanation, "fails only at levels basic, all");
}

TEST(ClassifyTest, EveryLevelIsAKernelBug) {
  Triage t = TriageOrt({"disable", "basic", "extended", "all"}, Accuracy());
  EXPECT_EQ(t.cls, TriageClass::kKernelBug);
  EXPECT_EQ(t.explanation, "fails at every level (disable, basic, extended, all)");
}

TEST(ClassifyTest, AnotherProviderPassing) {
  Triage t = TriageOrt({"disable", "basic", "extended", "all"}, Accuracy(),
                       OrtHello({"cpu", "cuda"}), Pass(), {"cpu"});
  EXPECT_EQ(t.cls, TriageClass::kProviderSpecific);
  EXPECT_EQ(t.explanation, "fails on cpu only (passes on cuda)");
  // Both providers failing: the levels decide.
  t = TriageOrt({"disable", "basic", "extended", "all"}, Accuracy(), OrtHello({"cpu", "cuda"}),
                Pass(), {"cpu", "cuda"});
  EXPECT_EQ(t.cls, TriageClass::kKernelBug);
}

TEST(ClassifyTest, BuiltinFailingTheSameWayIsAHarnessFault) {
  Triage t = TriageOrt({"disable", "basic", "extended", "all"}, Accuracy(), OrtHello(),
                       Accuracy());
  EXPECT_EQ(t.cls, TriageClass::kHarnessFault);
  EXPECT_FALSE(IsRealFailure(t.cls));
  // A different failure of the built-in compiler says nothing about the target.
  Verdict crash;
  crash.kind = VerdictKind::kCrash;
  t = TriageOrt({"disable", "basic", "extended", "all"}, Accuracy(), OrtHello(), crash);
  EXPECT_EQ(t.cls, TriageClass::kKernelBug);
}

TEST(ClassifyTest, PrecisionWhenF64IsRight) {
  Triage t = TriageOrt({"basic", "extended", "all"}, Accuracy("precision"));
  EXPECT_EQ(t.cls, TriageClass::kPrecision);
  EXPECT_FALSE(IsRealFailure(t.cls));
}

// ONNX Runtime 1.30 elides a Cast f32 -> f16 before a comparison it runs in
// f32: the promoted graph (no f16 rounding) agrees with fp64, but an exact
// output is judged against the roundings the graph asks for, so this is a bug.
TEST(ClassifyTest, AnExactOutputIsNeverPrecision) {
  Verdict v = Accuracy("precision");
  v.outputs[0].dtype = "bool";
  Triage t = TriageOrt({"disable", "basic", "extended", "all"}, v);
  EXPECT_EQ(t.cls, TriageClass::kKernelBug);
  EXPECT_TRUE(IsRealFailure(t.cls));
  v.outputs[0].dtype = "f16";
  EXPECT_EQ(TriageOrt({"disable", "basic", "extended", "all"}, v).cls, TriageClass::kPrecision);
}

TEST(ClassifyTest, NaNThroughMaximumIsASemanticsDifference) {
  compiler::Graph g = ParseOrDie(R"(
graph @g(%x: f32[4], %z: f32[4]) {
  %y = maximum(%x, %z) : f32[4]
  return %y
})");
  Verdict nan = Accuracy();
  nan.message = "output %y: NaN in the result where fp64 is finite";
  std::vector<TriageRow> rows(1);
  rows[0].probe = PlanProbes(OrtOptions("all"), nullptr)[0];
  rows[0].judged = true;
  rows[0].verdict = nan;
  Triage t = Classify(g, rows);
  EXPECT_EQ(t.cls, TriageClass::kSemanticsDifference);
  EXPECT_TRUE(absl::StrContains(t.explanation, "NaN propagation of maximum")) << t.explanation;
  // Without NaN the same graph is judged on the levels.
  rows[0].verdict = Accuracy();
  EXPECT_EQ(Classify(g, rows).cls, TriageClass::kKernelBug);
}

TEST(ClassifyTest, RoundOffByOneIsASemanticsDifference) {
  compiler::Graph g = ParseOrDie(R"(
graph @g(%x: f32[4]) {
  %y = round(%x) : f32[4]
  return %y
})");
  std::vector<TriageRow> rows(1);
  rows[0].probe = PlanProbes(CompileOptions(), nullptr)[0];
  rows[0].judged = true;
  rows[0].verdict = Accuracy();
  rows[0].verdict.outputs[0].metrics.max_abs_error = 1;
  EXPECT_EQ(Classify(g, rows).cls, TriageClass::kSemanticsDifference);
  rows[0].verdict.outputs[0].metrics.max_abs_error = 7;
  EXPECT_EQ(Classify(g, rows).cls, TriageClass::kKernelBug);
}

TEST(RunTriageTest, PassCannotJudgeErrorsAndDuplicatesJudgedOnce) {
  int calls = 0;
  BackendHello hello = OrtHello();
  Triage t = RunTriage(ReluGraph(), PlanProbes(OrtOptions("all"), &hello),
                       [&](const CompileOptions& o) -> absl::StatusOr<Verdict> {
                         ++calls;
                         if (!o.external()) return absl::UnavailableError("no builtin here");
                         return Pass();
                       });
  EXPECT_EQ(t.cls, TriageClass::kDoesNotReproduce);
  // Recorded == level all: 6 probes, 5 distinct configurations.
  EXPECT_EQ(calls, 5);
  EXPECT_FALSE(t.rows.back().judged);
  EXPECT_EQ(t.rows.back().error, "no builtin here");
  Json j = TriageToJson(t);
  EXPECT_EQ(*j.GetString("class"), "does not reproduce");
  EXPECT_EQ(j.Find("rows")->size(), 6u);

  Verdict cj;
  cj.kind = VerdictKind::kCannotJudge;
  cj.message = "undefined behavior at %y";
  t = TriageOrt({"all"}, cj);
  EXPECT_EQ(t.cls, TriageClass::kCannotJudge);
  EXPECT_TRUE(absl::StrContains(t.explanation, "undefined behavior")) << t.explanation;
}

}  // namespace
}  // namespace rk::repro
