#include "repro/oracle/backend_runner.h"

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "gtest/gtest.h"
#include "repro/oracle/oracle.h"

namespace rk::repro {
namespace {

constexpr char kGraph[] = R"(
graph @g(%x: f32[16,8], %w: f32[8,4]) {
  %m = matmul(%x, %w) : f32[16,4]
  %r = relu(%m) : f32[16,4]
  %e = exp(%r) : f32[16,4]
  return %e, %m
})";

std::string ServerPath() {
  return absl::StrCat(std::getenv("TEST_SRCDIR"), "/reprokit/repro/backend/builtin_server_main");
}

compiler::CompileOptions External(const std::vector<std::string>& backend_options = {}) {
  compiler::CompileOptions o;
  o.backend = ServerPath();
  o.backend_options = backend_options;
  return o;
}

class BackendRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<compiler::Graph> g = compiler::Parse(kGraph);
    ASSERT_TRUE(g.ok()) << g.status();
    graph_ = *std::move(g);
    inputs_ = compiler::SeededInputs(graph_, 5);
    Oracle::Config config;
    config.workers = 2;
    absl::StatusOr<std::unique_ptr<Oracle>> oracle = Oracle::Create(config);
    ASSERT_TRUE(oracle.ok()) << oracle.status();
    oracle_ = *std::move(oracle);
  }
  compiler::Graph graph_;
  std::vector<compiler::HostTensor> inputs_;
  std::unique_ptr<Oracle> oracle_;
};

// The same compiler judged in its worker and through the protocol gives the
// same verdicts, fault by fault.
TEST_F(BackendRunnerTest, SameVerdictsAsTheBuiltinPath) {
  for (const char* fault : {"", "relu:accuracy", "relu:compile_error", "relu:crash"}) {
    compiler::CompileOptions builtin;
    if (*fault) builtin.faults = {fault};
    compiler::CompileOptions external =
        External(*fault ? std::vector<std::string>{absl::StrCat("faults:", fault)}
                        : std::vector<std::string>{});
    absl::StatusOr<Verdict> a = oracle_->Judge(graph_, inputs_, builtin);
    absl::StatusOr<Verdict> b = oracle_->Judge(graph_, inputs_, external);
    ASSERT_TRUE(a.ok() && b.ok()) << fault;
    EXPECT_EQ(a->kind, b->kind) << fault << ": " << b->message;
    // A compile error's message and a crash's stack differ between the two
    // paths (the worker symbolizes the crashing stack; an external backend's
    // stack is its own): the kind is what must agree.
    if (a->kind == VerdictKind::kCrash) {
      EXPECT_EQ(b->signature.ToString(), "crash:SIGSEGV@compile");
    } else if (a->kind != VerdictKind::kCompileError) {
      EXPECT_EQ(a->signature, b->signature) << fault << ": " << b->message;
    }
    EXPECT_EQ(a->accuracy_subkind, b->accuracy_subkind) << fault;
  }
}

TEST_F(BackendRunnerTest, RestartsAfterACrashAndRunsInParallel) {
  absl::StatusOr<Verdict> crash =
      oracle_->Judge(graph_, inputs_, External({"faults:relu:crash"}));
  ASSERT_TRUE(crash.ok());
  EXPECT_EQ(crash->kind, VerdictKind::kCrash);
  std::vector<std::thread> threads;
  std::vector<VerdictKind> kinds(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<Verdict> v = oracle_->Judge(graph_, inputs_, External());
      kinds[i] = v.ok() ? v->kind : VerdictKind::kCannotJudge;
    });
  }
  for (std::thread& t : threads) t.join();
  for (VerdictKind k : kinds) EXPECT_EQ(k, VerdictKind::kPass);
}

TEST_F(BackendRunnerTest, OptionsAndDevicesAreChecked) {
  absl::StatusOr<Verdict> v = oracle_->Judge(graph_, inputs_, External({"nosuch:1"}));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("has no option 'nosuch'"), std::string::npos);
  compiler::CompileOptions builtin_with_backend_options;
  builtin_with_backend_options.backend_options = {"faults:relu:accuracy"};
  EXPECT_FALSE(oracle_->Judge(graph_, inputs_, builtin_with_backend_options).ok());
}

TEST_F(BackendRunnerTest, MissingBackendIsNotFound) {
  compiler::CompileOptions o;
  o.backend = "/nonexistent/backend";
  absl::StatusOr<Verdict> v = oracle_->Judge(graph_, inputs_, o);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kNotFound);
}

// A backend that returns an output of another shape or dtype than the graph
// declares has miscompiled: a shape_mismatch verdict naming both types; one
// that returns another number of outputs broke the protocol.
TEST(BackendRunnerShapes, WrongTypesAreVerdictsWrongCountsAreErrors) {
  setenv("REPROKIT_BACKEND_POOL", "off", 1);
  const std::string broken =
      absl::StrCat(std::getenv("TEST_SRCDIR"), "/reprokit/backends/testing/broken_backend");
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(
graph @g(%x: f32[4,8]) {
  %r = relu(%x) : f32[4,8]
  return %r
})");
  ASSERT_TRUE(g.ok()) << g.status();
  const std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(*g, 1);
  compiler::CompileOptions options;
  options.backend = broken;
  struct Case {
    const char* mode;
    const char* signature;
    const char* returned;
  };
  for (const Case& c : {Case{"wrong_shape", "shape_mismatch:relu:rank:+1", "as f32[1,4,8]"},
                        Case{"wrong_dtype", "shape_mismatch:relu:dtype:f32->f64", "as f64[4,8]"}}) {
    setenv("BROKEN_BACKEND_MODE", c.mode, 1);
    absl::StatusOr<std::unique_ptr<BackendRunner>> runner =
        BackendRunner::Create(broken, 1, BackendLimits());
    ASSERT_TRUE(runner.ok()) << runner.status();
    absl::StatusOr<ProgramRuns> runs = (*runner)->Run(*g, inputs, options, 2);
    ASSERT_TRUE(runs.ok()) << c.mode << ": " << runs.status();
    ASSERT_TRUE(runs->ended.has_value()) << c.mode;
    EXPECT_EQ(runs->ended->kind, VerdictKind::kShapeMismatch) << c.mode;
    EXPECT_EQ(runs->ended->signature.ToString(), c.signature);
    EXPECT_NE(runs->ended->message.find(c.returned), std::string::npos) << runs->ended->message;
    EXPECT_NE(runs->ended->message.find("the graph declares f32[4,8]"), std::string::npos)
        << runs->ended->message;
    ASSERT_EQ(runs->ended->outputs.size(), 1u);
    EXPECT_EQ(runs->ended->outputs[0].op, "relu");
  }
  setenv("BROKEN_BACKEND_MODE", "wrong_outputs", 1);
  absl::StatusOr<std::unique_ptr<BackendRunner>> runner =
      BackendRunner::Create(broken, 1, BackendLimits());
  ASSERT_TRUE(runner.ok()) << runner.status();
  absl::StatusOr<ProgramRuns> runs = (*runner)->Run(*g, inputs, options, 2);
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(runs.status().message().find("broke the protocol"), std::string::npos)
      << runs.status();
  unsetenv("BROKEN_BACKEND_MODE");
}

TEST_F(BackendRunnerTest, RunsAsOftenAsAsked) {
  absl::StatusOr<std::unique_ptr<BackendRunner>> runner =
      BackendRunner::Create(ServerPath(), 1, BackendLimits());
  ASSERT_TRUE(runner.ok()) << runner.status();
  EXPECT_EQ((*runner)->hello().name, "reprokit");
  absl::StatusOr<ProgramRuns> runs = (*runner)->Run(graph_, inputs_, External(), 2);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_FALSE(runs->ended.has_value());
  EXPECT_EQ(runs->runs.size(), 2u);
}

}  // namespace
}  // namespace rk::repro
