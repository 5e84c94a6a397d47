// The onnxruntime backend's per-op declarations (backends/onnxruntime/
// op_dtypes.json, sent in its hello as op_dtypes) against the real library:
// every op sample of op_samples_test_util.h, retyped to each dtype reprokit
// accepts for it, exported to ONNX by reprokit and run once through the
// adapter (backends/onnxruntime/serve: Python's onnxruntime where importable,
// else onnxruntime-node from tools/install_deps.sh).
//
//  - every declared (op, dtype) pair runs: no compile_error, runtime_error,
//    unsupported or wrong output type;
//  - every declared pair is exercised by some sample (a declaration nothing
//    tests is an error);
//  - a pair that is not declared is never sent (cannot_judge naming op,
//    dtype and node) by the harness;
//  - the same pairs probed with everything declared (REPROKIT_ORT_OP_DTYPES)
//    print which undeclared pairs ONNX Runtime would take after all, so the
//    table can grow when the exporter learns new forms.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/onnx/checker.h"
#include "compiler/onnx/exporter.h"
#include "gtest/gtest.h"
#include "repro/backend/applicability.h"
#include "repro/oracle/backend_runner.h"
#include "testing/op_samples_test_util.h"

namespace rk::testing {
namespace {

constexpr const char* kDTypes[] = {"f16", "bf16", "f32", "f64", "i32", "i64", "bool"};

struct Probe {
  std::string op;
  std::string dtype;  // the op node's compute dtype (applicability.h)
  compiler::Graph graph;
};

// Samples for dtypes the op samples' literals cannot be retyped to.
std::vector<op_coverage::OpSample> ExtraSamples() {
  return {
      {"constant",
       "graph @g(%x: f32[2,3]) {\n  %c = constant() {value=dense<f32[3]>[1, 0, 2]} : f32[3]\n"
       "  %y = add(%x, %c) : f32[2,3]\n  return %y\n}"},
      {"constant",
       "graph @g(%x: bool[2,3]) {\n  %c = constant() {value=dense<bool[3]>[true, false, true]} "
       ": bool[3]\n  %y = and(%x, %c) : bool[2,3]\n  return %y\n}"},
      {"full",
       "graph @g(%x: bool[2,3]) {\n  %f = full() {dtype=bool, shape=[2,3], value=1.0} : "
       "bool[2,3]\n  %y = and(%x, %f) : bool[2,3]\n  return %y\n}"},
  };
}

// Every sample retyped from f32 to each dtype, where reprokit accepts it.
std::vector<Probe> Probes() {
  std::vector<Probe> probes;
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<op_coverage::OpSample> samples = op_coverage::OpSamples();
  for (op_coverage::OpSample& extra : ExtraSamples()) samples.push_back(std::move(extra));
  for (const op_coverage::OpSample& sample : samples) {
    if (sample.op == "input") continue;
    for (const char* dtype : kDTypes) {
      std::string text = sample.text;
      for (size_t at = 0; (at = text.find("f32", at)) != std::string::npos; at += 3) {
        text.replace(at, 3, dtype);
        at += std::string(dtype).size() - 3;
      }
      absl::StatusOr<compiler::Graph> graph = compiler::Parse(text);
      if (!graph.ok()) continue;  // reprokit does not take this op on this dtype
      for (const compiler::Node& node : graph->nodes()) {
        if (compiler::OpName(node.op) != sample.op) continue;
        const std::string computes(compiler::DTypeName(repro::ComputeDType(*graph, node)));
        if (seen.insert({sample.op, computes}).second) {
          probes.push_back({sample.op, computes, *graph});
        }
        break;
      }
    }
  }
  return probes;
}

void RegisterExporter() {
  repro::BackendRunner::SetOnnxExporter(
      [](const compiler::Graph& graph) -> absl::StatusOr<std::string> {
        RK_ASSIGN_OR_RETURN(auto model, compiler::onnx_io::ExportModel(graph));
        RK_RETURN_IF_ERROR(compiler::onnx_io::CheckModel(model));
        std::string bytes;
        if (!model.SerializeToString(&bytes)) return absl::InternalError("serialize");
        return bytes;
      });
}

// The adapter lives in the source tree (backends/onnxruntime/serve).
std::string Backend() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return absl::StrCat(srcdir, "/", workspace, "/backends/onnxruntime/serve");
  }
  return "backends/onnxruntime/serve";
}

// "" when the graph ran, else what happened.
std::string RunOnce(repro::BackendRunner& runner, const compiler::Graph& graph) {
  compiler::CompileOptions options;
  options.backend = "onnxruntime";
  // Integer inputs are all 1: in range for every gather sample and no
  // integer division by zero (undefined behavior, not what is probed here).
  std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(graph, 1);
  for (compiler::HostTensor& t : inputs) {
    if (!compiler::IsInteger(t.type().dtype)) continue;
    for (int64_t i = 0; i < t.num_elements(); ++i) t.SetInt(i, 1);
  }
  absl::StatusOr<repro::ProgramRuns> runs = runner.Run(graph, inputs, options, 1);
  if (!runs.ok()) return std::string(runs.status().message());
  if (runs->ended.has_value()) {
    return absl::StrCat(std::string(repro::VerdictKindName(runs->ended->kind)), ": ",
                        runs->ended->message);
  }
  if (runs->runs.size() != 1) return "no run came back";
  return "";
}

class OnnxRuntimeOpDTypes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { RegisterExporter(); }
};

TEST_F(OnnxRuntimeOpDTypes, EveryDeclaredPairRunsAndNothingElseIsSent) {
  repro::BackendLimits limits;
  limits.timeout = absl::Seconds(60);
  absl::StatusOr<std::unique_ptr<repro::BackendRunner>> runner =
      repro::BackendRunner::Create(Backend(), 1, limits);
  ASSERT_TRUE(runner.ok()) << runner.status()
                           << "\n(ONNX Runtime is installed by tools/install_deps.sh)";
  const repro::BackendHello& hello = (*runner)->hello();
  std::cout << "backend: " << hello.version << "\n";
  ASSERT_FALSE(hello.op_dtypes.empty()) << "the onnxruntime hello declares no op_dtypes";

  std::set<std::pair<std::string, std::string>> exercised;
  int ran = 0, refused = 0;
  for (const Probe& probe : Probes()) {
    SCOPED_TRACE(absl::StrCat(probe.op, " on ", probe.dtype, "\n",
                              compiler::PrintInline(probe.graph)));
    std::optional<repro::NotApplicable> no = repro::CheckApplicable(hello, probe.graph);
    const std::string outcome = RunOnce(**runner, probe.graph);
    std::cout << (no.has_value() ? "not sent " : outcome.empty() ? "ran " : "FAILED ")
              << probe.op << " " << probe.dtype << "\n";
    if (!no.has_value()) {
      exercised.insert({probe.op, probe.dtype});
      EXPECT_EQ(outcome, "") << "declared, but ONNX Runtime does not run it";
      ++ran;
    } else {
      // Not sent: the verdict names what is missing.
      EXPECT_NE(outcome.find("cannot_judge"), std::string::npos) << outcome;
      EXPECT_NE(outcome.find(no->what), std::string::npos) << outcome;
      ++refused;
    }
  }
  for (const auto& [op, dtypes] : hello.op_dtypes) {
    for (const std::string& dtype : dtypes) {
      if (!hello.SupportsDType(dtype)) continue;
      EXPECT_TRUE(exercised.contains({op, dtype}))
          << op << " on " << dtype << " is declared, and no sample runs it";
    }
  }
  std::cout << ran << " declared (op, dtype) pairs ran; " << refused << " not declared, not sent\n";
  EXPECT_GT(ran, 100);
}

// What the declaration leaves out, tried anyway: printed, not asserted (the
// exporter's forms change; a pair that runs here can be declared).
TEST_F(OnnxRuntimeOpDTypes, UndeclaredPairsProbed) {
  const std::string table = absl::StrCat(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                                                    : "/tmp",
                                         "/all_op_dtypes.json");
  std::vector<std::string> all(std::begin(kDTypes), std::end(kDTypes));
  all.erase(std::find(all.begin(), all.end(), "bf16"));  // no bfloat16 tensors in the runtimes
  std::set<std::string> ops;
  for (const op_coverage::OpSample& s : op_coverage::OpSamples()) ops.insert(s.op);
  {
    std::ofstream out(table);
    std::vector<std::string> quoted;
    for (const std::string& d : all) quoted.push_back(absl::StrCat("\"", d, "\""));
    const std::string list = absl::StrCat("[", absl::StrJoin(quoted, ","), "]");
    out << "{\"dtypes\": " << list << ", \"op_dtypes\": {";
    bool first = true;
    for (const std::string& op : ops) {
      out << (first ? "" : ",") << "\"" << op << "\": " << list;
      first = false;
    }
    out << "}}\n";
  }
  ::setenv("REPROKIT_ORT_OP_DTYPES", table.c_str(), 1);
  repro::BackendLimits limits;
  absl::StatusOr<std::unique_ptr<repro::BackendRunner>> everything =
      repro::BackendRunner::Create(Backend(), 1, limits);
  ::unsetenv("REPROKIT_ORT_OP_DTYPES");
  ASSERT_TRUE(everything.ok()) << everything.status();
  absl::StatusOr<std::unique_ptr<repro::BackendRunner>> declared =
      repro::BackendRunner::Create(Backend(), 1, limits);
  ASSERT_TRUE(declared.ok()) << declared.status();
  int would_run = 0, fails = 0;
  for (const Probe& probe : Probes()) {
    if (!repro::CheckApplicable((*declared)->hello(), probe.graph).has_value()) continue;
    if (probe.dtype == "bf16") continue;
    const std::string outcome = RunOnce(**everything, probe.graph);
    if (outcome.empty()) {
      std::cout << "not declared, runs: " << probe.op << " on " << probe.dtype << "\n";
      ++would_run;
    } else {
      std::cout << "not declared, fails: " << probe.op << " on " << probe.dtype << ": "
                << outcome.substr(0, 200) << "\n";
      ++fails;
    }
  }
  std::cout << would_run << " undeclared pairs would run, " << fails << " fail\n";
}

}  // namespace
}  // namespace rk::testing
