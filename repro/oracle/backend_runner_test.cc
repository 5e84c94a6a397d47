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
