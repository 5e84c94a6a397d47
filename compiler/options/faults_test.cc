#include "compiler/options/faults.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;

FaultSet MustParse(const std::vector<std::string>& specs) {
  absl::StatusOr<FaultSet> set = FaultSet::Parse(specs);
  EXPECT_TRUE(set.ok()) << set.status();
  return set.ok() ? *set : FaultSet();
}

TEST(FaultsTest, KindNames) {
  EXPECT_EQ(FaultKindName(FaultKind::kAccuracy), "accuracy");
  EXPECT_EQ(FaultKindName(FaultKind::kCompileError), "compile_error");
  EXPECT_EQ(FaultKindName(FaultKind::kRuntimeCrash), "runtime_crash");
  EXPECT_EQ(FaultKindName(FaultKind::kDropLast), "drop_last");
  EXPECT_EQ(FaultKindName(FaultKind::kWrongIndex), "wrong_index");
}

TEST(FaultsTest, ParsesOpAndPassFaults) {
  FaultSet set = MustParse({"relu:accuracy", "reduce_sum:drop_last", "fuse:wrong_index",
                            "cse:compile_error", "relu:accuracy"});
  ASSERT_EQ(set.faults().size(), 4u) << "duplicates are kept once";
  EXPECT_TRUE(set.Has(Op::kRelu, FaultKind::kAccuracy));
  EXPECT_TRUE(set.Has("relu", FaultKind::kAccuracy));
  EXPECT_FALSE(set.Has(Op::kRelu, FaultKind::kCrash));
  EXPECT_FALSE(set.Has(Op::kExp, FaultKind::kAccuracy));
  EXPECT_TRUE(set.Has(Op::kReduceSum, FaultKind::kDropLast));
  EXPECT_TRUE(set.Has("fuse", FaultKind::kWrongIndex));
  EXPECT_TRUE(set.Has("cse", FaultKind::kCompileError));
  EXPECT_TRUE(FaultSet().empty());
  EXPECT_FALSE(set.empty());
}

struct BadSpec {
  std::string spec;
  std::string message;
};

TEST(FaultsTest, RejectsBadSpecsWithValidAlternatives) {
  const std::vector<BadSpec> cases = {
      {"relu", "expected <op-or-pass>:<kind>"},
      {":crash", "expected <op-or-pass>:<kind>"},
      {"relu:", "expected <op-or-pass>:<kind>"},
      {"relux:accuracy", "unknown target 'relux'; valid targets: constant, full,"},
      {"input:crash", "unknown target 'input'"},
      {"softmax:accuracy", "unknown target 'softmax'"},
      {"decompose:crash", "unknown target 'decompose'"},
      {"relu:wrong", "kind 'wrong' does not apply to 'relu'; valid kinds: accuracy,"},
      {"relu:drop_last", "does not apply to 'relu'"},
      {"cse:accuracy", "valid kinds: compile_error, crash, abort, hang"},
      {"relu:wrong_index", "does not apply"},
  };
  for (const BadSpec& c : cases) {
    absl::StatusOr<FaultSet> set = FaultSet::Parse({c.spec});
    EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument) << c.spec;
    EXPECT_THAT(set.status().message(), HasSubstr(c.message)) << c.spec;
  }
}

// Value faults on ops that compute no value could never fire: refused at
// parse time, while the process-level kinds still apply to them.
TEST(FaultsTest, RejectsValueFaultsOnOpsThatComputeNoValue) {
  for (const char* op : {"concat", "full", "iota", "constant", "reshape", "transpose",
                         "broadcast_to", "slice", "squeeze", "unsqueeze"}) {
    for (const char* kind : {"accuracy", "nondeterministic"}) {
      const std::string spec = std::string(op) + ":" + kind;
      absl::StatusOr<FaultSet> set = FaultSet::Parse({spec});
      EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument) << spec;
      EXPECT_THAT(set.status().message(), HasSubstr("does not apply")) << spec;
    }
    MustParse({std::string(op) + ":compile_error"});
  }
  EXPECT_EQ(FaultSet::Parse({"constant:runtime_crash"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  MustParse({"pad:accuracy", "cast:accuracy", "full:runtime_crash", "concat:runtime_crash"});
}

TEST(FaultsTest, ParsesBackwardOnlyFaults) {
  FaultSet set = MustParse({"vjp:transpose:wrong_perm", "vjp:reduce_sum:drop_broadcast",
                            "vjp:matmul:reshape_transpose", "vjp:softmax:drop_sum",
                            "vjp:mul:swap_operands"});
  EXPECT_EQ(set.faults().size(), 5u);
  EXPECT_TRUE(set.HasVjp(Op::kTranspose, FaultKind::kWrongPerm));
  EXPECT_TRUE(set.Has("vjp:transpose", FaultKind::kWrongPerm));
  EXPECT_FALSE(set.Has(Op::kTranspose, FaultKind::kWrongPerm)) << "forward faults are separate";
  EXPECT_FALSE(set.HasVjp(Op::kTranspose, FaultKind::kDropSum));
  EXPECT_TRUE(set.HasVjp(Op::kSoftmax, FaultKind::kDropSum));
  // A backward fault never fires at compile time.
  EXPECT_TRUE(set.FireCompileTimeFaults("transpose").ok());
  EXPECT_TRUE(set.FireCompileTimeFaults("vjp:transpose").ok());
  EXPECT_EQ(FaultKindName(FaultKind::kReshapeTranspose), "reshape_transpose");
}

TEST(FaultsTest, RejectsBackwardFaultsThatDoNotApply) {
  const std::vector<BadSpec> cases = {
      {"vjp:transpose:drop_sum", "kind 'drop_sum' does not apply to 'vjp:transpose'; valid kinds: wrong_perm"},
      {"vjp:relu:wrong_perm", "unknown target 'vjp:relu'"},
      {"vjp:nope:wrong_perm", "unknown target 'vjp:nope'"},
      {"vjp:transpose", "expected <op-or-pass>:<kind> or vjp:<op>:<kind>"},
      {"vjp:transpose:", "expected"},
      {"transpose:wrong_perm", "does not apply to 'transpose'"},
      {"vjp:", "expected"},
  };
  for (const BadSpec& c : cases) {
    absl::StatusOr<FaultSet> set = FaultSet::Parse({c.spec});
    EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument) << c.spec;
    EXPECT_THAT(set.status().message(), HasSubstr(c.message)) << c.spec;
  }
  absl::StatusOr<FaultSet> set = FaultSet::Parse({"relux:accuracy"});
  EXPECT_THAT(set.status().message(), HasSubstr("vjp:transpose, vjp:reduce_sum"));
}

TEST(FaultsTest, ValidTargetsIncludeOptionalPasses) {
  absl::StatusOr<FaultSet> set = FaultSet::Parse({"nope:crash"});
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(), HasSubstr("cse"));
  EXPECT_THAT(set.status().message(), HasSubstr("layout_simplify"));
  EXPECT_THAT(set.status().message(), HasSubstr("fuse"));
}

TEST(FaultsTest, CompileErrorReturnsInternal) {
  FaultSet set = MustParse({"relu:compile_error", "exp:accuracy"});
  absl::Status status = set.FireCompileTimeFaults("relu");
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(), "injected fault: relu:compile_error");
  EXPECT_TRUE(set.FireCompileTimeFaults("exp").ok()) << "accuracy is not a compile-time fault";
  EXPECT_TRUE(set.FireCompileTimeFaults("add").ok());
}

TEST(FaultsDeathTest, CrashIsARealSegfault) {
  FaultSet set = MustParse({"relu:crash"});
  EXPECT_TRUE(set.FireCompileTimeFaults("exp").ok());
  EXPECT_EXIT((void)set.FireCompileTimeFaults("relu"), ::testing::KilledBySignal(SIGSEGV), "");
}

TEST(FaultsDeathTest, AbortAborts) {
  FaultSet set = MustParse({"cse:abort"});
  EXPECT_EXIT((void)set.FireCompileTimeFaults("cse"), ::testing::KilledBySignal(SIGABRT), "");
}

TEST(FaultsDeathTest, HangNeverReturns) {
  FaultSet set = MustParse({"relu:hang"});
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    (void)set.FireCompileTimeFaults("relu");
    _exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int wstatus = 0;
  EXPECT_EQ(waitpid(child, &wstatus, WNOHANG), 0) << "the hanging child exited";
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  EXPECT_TRUE(WIFSIGNALED(wstatus));
  EXPECT_EQ(WTERMSIG(wstatus), SIGKILL);
}

}  // namespace
}  // namespace rk::compiler
