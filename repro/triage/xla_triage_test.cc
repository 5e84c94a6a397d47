// Triage of a jax_xla repro: the probes vary XLA's knobs (jit off and on as
// the ordered level, the XLA debug options the adapter declares, each on its
// device, the other device) and the classes read them: a failure only under
// jax.jit is an optimizer bug "from level jit=true", one op by op too a kernel
// bug, one on cuda only provider-specific.
#include <algorithm>
#include <string>

#include "absl/strings/match.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "repro/triage/triage.h"

namespace rk::repro {
namespace {

using compiler::CompileOptions;

compiler::Graph ReluGraph() {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(
graph @g(%x: f32[4]) {
  %y = relu(%x) : f32[4]
  return %y
})");
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : compiler::Graph();
}

// The hello of backends/jax_xla/serve where jaxlib took every XLA option.
BackendHello JaxHello(std::vector<std::string> devices) {
  BackendHello h;
  h.name = "jax_xla";
  h.version = "jax 0.11.0 / jaxlib 0.11.0 (XLA, cpu, cuda)";
  h.devices = std::move(devices);
  h.options = {{"jit", "true", ""},
               {"jax_default_matmul_precision", "highest", ""},
               {"inject_relu_bug_TESTING_ONLY", "", ""},
               {"xla_backend_optimization_level", "xla", ""},
               {"xla_allow_excess_precision", "xla", ""},
               {"xla_gpu_autotune_level", "xla", ""},
               {"xla_gpu_enable_triton_gemm", "xla", ""},
               {"xla_gpu_deterministic_ops", "xla", ""}};
  return h;
}

CompileOptions Recorded(const std::string& device) {
  CompileOptions o;
  o.backend = "jax_xla";
  o.device = device;
  o.backend_options = {"inject_relu_bug_TESTING_ONLY:accuracy"};
  return o;
}

bool Has(const CompileOptions& o, const std::string& kv) {
  return std::find(o.backend_options.begin(), o.backend_options.end(), kv) !=
         o.backend_options.end();
}

std::vector<std::string> Labels(const std::vector<TriageProbe>& probes) {
  std::vector<std::string> labels;
  for (const TriageProbe& p : probes) labels.push_back(p.label);
  return labels;
}

TEST(XlaProbesTest, JitIsTheLevelAndXlaKnobsGoWithTheirDevice) {
  BackendHello hello = JaxHello({"cpu", "cuda"});
  std::vector<TriageProbe> probes = PlanProbes(Recorded("cuda"), &hello);
  EXPECT_EQ(Labels(probes),
            (std::vector<std::string>{"as recorded", "jit=false", "jit=true", "device=cpu",
                                      "xla_backend_optimization_level=0",
                                      "xla_allow_excess_precision=false",
                                      "xla_gpu_autotune_level=0",
                                      "xla_gpu_enable_triton_gemm=false",
                                      "xla_gpu_deterministic_ops=true",
                                      "builtin (reprokit's compiler)"}));
  EXPECT_EQ(probes[1].group, ProbeGroup::kLevel);
  EXPECT_EQ(probes[1].level, 0);
  EXPECT_TRUE(Has(probes[1].options, "jit:false"));
  // The recorded options stay (the planted fault is part of the repro).
  EXPECT_TRUE(Has(probes[1].options, "inject_relu_bug_TESTING_ONLY:accuracy"));
  EXPECT_TRUE(Has(probes[4].options, "xla_backend_optimization_level:0"));
  EXPECT_FALSE(Has(probes[4].options, "jit:false"));
  // On cpu the GPU-only knobs are not probed.
  std::vector<std::string> cpu = Labels(PlanProbes(Recorded("cpu"), &hello));
  EXPECT_EQ(std::count(cpu.begin(), cpu.end(), "xla_gpu_autotune_level=0"), 0);
  EXPECT_EQ(std::count(cpu.begin(), cpu.end(), "xla_backend_optimization_level=0"), 1);
  EXPECT_EQ(std::count(cpu.begin(), cpu.end(), "device=cuda"), 1);
}

TEST(XlaProbesTest, UndeclaredXlaKnobsAreNotProbed) {
  BackendHello hello = JaxHello({"cpu"});
  hello.options.resize(3);  // this jaxlib took no XLA option
  EXPECT_EQ(Labels(PlanProbes(Recorded("cpu"), &hello)),
            (std::vector<std::string>{"as recorded", "jit=false", "jit=true",
                                      "builtin (reprokit's compiler)"}));
}

Verdict Accuracy() {
  Verdict v;
  v.kind = VerdictKind::kAccuracy;
  v.accuracy_subkind = "miscompile";
  v.message = "output %y: 4 of 4 elements differ";
  OutputVerdict o;
  o.index = 0;
  o.dtype = "f32";
  o.metrics.judgement = Judgement::kFail;
  o.metrics.max_abs_error = 1;
  v.outputs.push_back(o);
  return v;
}

// Judges the jax probes: jit=false (op by op) fails when `eager_fails`, the
// devices in `failing_devices` fail, the built-in compiler passes.
Triage TriageJax(bool eager_fails, std::vector<std::string> failing_devices,
                 const std::string& recorded_device = "cuda") {
  BackendHello hello = JaxHello({"cpu", "cuda"});
  return RunTriage(ReluGraph(), PlanProbes(Recorded(recorded_device), &hello),
                   [&](const CompileOptions& o) -> absl::StatusOr<Verdict> {
                     if (!o.external()) return Verdict();
                     const bool device_fails =
                         std::find(failing_devices.begin(), failing_devices.end(), o.device) !=
                         failing_devices.end();
                     const bool eager = Has(o, "jit:false");
                     return device_fails && (!eager || eager_fails) ? Accuracy() : Verdict();
                   });
}

TEST(XlaClassifyTest, FailingOnlyUnderJitIsAnOptimizerBugFromJitTrue) {
  Triage t = TriageJax(/*eager_fails=*/false, {"cpu", "cuda"});
  EXPECT_EQ(t.cls, TriageClass::kOptimizerBug);
  EXPECT_EQ(t.explanation, "fails only with optimizations from level jit=true");
  const std::string table = FormatTriage(t);
  EXPECT_TRUE(absl::StrContains(table, "jit=false")) << table;
  EXPECT_TRUE(absl::StrContains(table, "xla_gpu_enable_triton_gemm=false")) << table;
}

TEST(XlaClassifyTest, FailingOpByOpTooIsAKernelBug) {
  Triage t = TriageJax(/*eager_fails=*/true, {"cpu", "cuda"});
  EXPECT_EQ(t.cls, TriageClass::kKernelBug);
  EXPECT_EQ(t.explanation, "fails at every level (jit=false, jit=true)");
}

TEST(XlaClassifyTest, FailingOnCudaOnlyIsProviderSpecific) {
  Triage t = TriageJax(/*eager_fails=*/true, {"cuda"});
  EXPECT_EQ(t.cls, TriageClass::kProviderSpecific);
  EXPECT_EQ(t.explanation, "fails on cuda only (passes on cpu)");
}

}  // namespace
}  // namespace rk::repro
