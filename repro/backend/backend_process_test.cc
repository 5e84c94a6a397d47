#include "repro/backend/backend_process.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"
#include "repro/backend/locate.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::Shape;
using compiler::TensorType;

constexpr char kGraph[] = R"(
graph @g(%x: f32[4]) {
  %r = relu(%x) : f32[4]
  %y = mul(%r, %x) : f32[4]
  return %y
})";

BackendCommand Builtin() {
  return {"reprokit",
          {absl::StrCat(std::getenv("TEST_SRCDIR"), "/reprokit/repro/backend/builtin_server_main")}};
}

// A backend written as a shell script, for misbehaviour at start.
BackendCommand Script(const std::string& name, const std::string& body) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return {path, {path}};
}

std::string Request(int64_t id, const std::vector<std::pair<std::string, std::string>>& options,
                    const HostTensor& x, int runs = 1) {
  RunRequest r;
  r.id = id;
  r.runs = runs;
  r.options = options;
  r.graph_text = kGraph;
  r.inputs.emplace_back("x", x);
  return EncodeRunRequest(r, "");
}

const std::vector<TensorType> kOutputs = {TensorType(DType::kF32, Shape({4}))};

TEST(BackendProcessTest, BuiltinServerComputes) {
  absl::StatusOr<std::unique_ptr<BackendProcess>> p = BackendProcess::Start(Builtin(), {});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->hello().name, "reprokit");
  EXPECT_NE((*p)->hello().FindOption("faults"), nullptr);
  HostTensor x = HostTensor::Zeros(kOutputs[0]);
  for (int i = 0; i < 4; ++i) x.SetDouble(i, i - 1.5);
  // Several requests over one process.
  for (int id = 1; id <= 3; ++id) {
    BackendOutcome out = (*p)->Run(Request(id, {}, x, 2), id, kOutputs, 2);
    ASSERT_EQ(out.kind, BackendOutcome::Kind::kReply) << out.what << out.stderr_tail;
    ASSERT_EQ(out.reply.kind, RunReply::Kind::kResult) << out.reply.message;
    ASSERT_EQ(out.reply.runs.size(), 2u);
    EXPECT_EQ(out.reply.runs[0][0].GetDouble(3), 1.5 * 1.5);
    EXPECT_EQ(out.reply.runs[0][0].GetDouble(0), 0.0);
    EXPECT_EQ(out.phase, "run");
  }
}

TEST(BackendProcessTest, CompileErrorIsAReply) {
  absl::StatusOr<std::unique_ptr<BackendProcess>> p = BackendProcess::Start(Builtin(), {});
  ASSERT_TRUE(p.ok()) << p.status();
  BackendOutcome out = (*p)->Run(Request(1, {{"faults", "relu:compile_error"}},
                                         HostTensor::Zeros(kOutputs[0])),
                                 1, kOutputs, 1);
  ASSERT_EQ(out.kind, BackendOutcome::Kind::kReply);
  EXPECT_EQ(out.reply.kind, RunReply::Kind::kFailure);
  EXPECT_EQ(out.reply.failure_kind, "compile_error");
  EXPECT_TRUE((*p)->alive());
}

TEST(BackendProcessTest, CrashAndHangEndTheProcess) {
  absl::StatusOr<std::unique_ptr<BackendProcess>> p = BackendProcess::Start(Builtin(), {});
  ASSERT_TRUE(p.ok()) << p.status();
  BackendOutcome out = (*p)->Run(Request(1, {{"faults", "relu:crash"}},
                                         HostTensor::Zeros(kOutputs[0])),
                                 1, kOutputs, 1);
  EXPECT_EQ(out.kind, BackendOutcome::Kind::kCrashed);
  EXPECT_EQ(out.signal, SIGSEGV);
  EXPECT_EQ(out.phase, "compile");
  EXPECT_FALSE((*p)->alive());

  BackendLimits limits;
  limits.timeout = absl::Milliseconds(500);
  p = BackendProcess::Start(Builtin(), limits);
  ASSERT_TRUE(p.ok()) << p.status();
  out = (*p)->Run(Request(1, {{"faults", "relu:hang"}}, HostTensor::Zeros(kOutputs[0])), 1,
                  kOutputs, 1);
  EXPECT_EQ(out.kind, BackendOutcome::Kind::kTimedOut);
  EXPECT_EQ(out.phase, "compile");
  EXPECT_LT(out.seconds, 3.0);
  EXPECT_FALSE((*p)->alive());
}

TEST(BackendProcessTest, BadStartsAreSpecificErrors) {
  BackendLimits limits;
  limits.start_timeout = absl::Milliseconds(500);
  struct Case {
    BackendCommand command;
    absl::StatusCode code;
    std::string says;
  } cases[] = {
      {{"/no/such/backend", {"/no/such/backend"}}, absl::StatusCode::kNotFound, "No such file"},
      {Script("dies", "echo 'cannot load model' >&2; exit 3"), absl::StatusCode::kUnavailable,
       "ended before its hello (exited with 3); its stderr ends: cannot load model"},
      {Script("garbage", "echo 'Hello, I am a compiler'; sleep 5"),
       absl::StatusCode::kUnavailable, "does not speak the protocol: not a protocol frame"},
      {Script("silent", "sleep 30"), absl::StatusCode::kUnavailable, "sent no hello within"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::unique_ptr<BackendProcess>> p = BackendProcess::Start(c.command, limits);
    ASSERT_FALSE(p.ok()) << c.command.spec;
    EXPECT_EQ(p.status().code(), c.code) << p.status();
    EXPECT_NE(p.status().message().find(c.says), std::string::npos) << p.status();
    EXPECT_NE(p.status().message().find(c.command.spec), std::string::npos) << p.status();
  }
}

TEST(BackendProcessTest, LocateFindsNamesOnTheBackendPath) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  Script("reprokit-backend-mine", "exit 0");
  ::setenv("REPROKIT_BACKEND_PATH", dir.c_str(), 1);
  absl::StatusOr<BackendCommand> found = LocateBackend("mine");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->argv[0], dir + "/reprokit-backend-mine");
  absl::StatusOr<BackendCommand> missing = LocateBackend("nosuch");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("is not installed"), std::string::npos);
  EXPECT_FALSE(LocateBackend("reprokit").ok());  // this test binary serves nothing
  EXPECT_FALSE(LocateBackend("two words").ok());
}

}  // namespace
}  // namespace rk::repro
