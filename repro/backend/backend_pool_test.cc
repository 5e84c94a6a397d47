#include "repro/backend/backend_pool.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "repro/backend/channel_pool.h"
#include "repro/backend/pool_client.h"
#include "repro/backend/pool_wire.h"
#include "repro/backend/warm_up.h"

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

const std::vector<TensorType> kOutputs = {TensorType(DType::kF32, Shape({4}))};

BackendCommand Builtin() {
  return {"reprokit",
          {absl::StrCat(std::getenv("TEST_SRCDIR"), "/reprokit/repro/backend/builtin_server_main")}};
}

std::string Request(int64_t id, const std::string& faults = "") {
  RunRequest r;
  r.id = id;
  if (!faults.empty()) r.options.emplace_back("faults", faults);
  r.graph_text = kGraph;
  HostTensor x = HostTensor::Zeros(kOutputs[0]);
  for (int i = 0; i < 4; ++i) x.SetDouble(i, i - 1.5);
  r.inputs.emplace_back("x", x);
  return EncodeRunRequest(r, "");
}

// A pool on a thread of this test, on a short socket path of its own.
class PoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/rkpoolXXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    ::setenv("REPROKIT_BACKEND_POOL_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (server_.valid()) {
      absl::StatusOr<std::unique_ptr<PoolConnection>> c = PoolConnection::Connect(socket_, {});
      if (c.ok()) (void)(*c)->Stop();
      server_.wait();
    }
    ::rmdir((dir_ + "/first").c_str());
    ::rmdir(dir_.c_str());
  }
  void StartPool(int processes, absl::Duration idle = absl::Minutes(5)) {
    options_.command = Builtin();
    StartPoolWith(processes, idle);
  }
  // With options_.command as it is.
  void StartPoolWith(int processes, absl::Duration idle = absl::Minutes(5)) {
    options_.processes = processes;
    options_.idle = idle;
    absl::StatusOr<std::string> socket =
        BackendPoolSocket(options_.command, options_.limits.memory_bytes, true);
    ASSERT_TRUE(socket.ok()) << socket.status();
    socket_ = options_.socket_path = *socket;
    std::promise<void> ready;
    server_ = std::async(std::launch::async, [this, &ready] {
      return ServeBackendPool(options_, [&ready](const BackendHello&) { ready.set_value(); });
    });
    ASSERT_EQ(ready.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  }
  std::string dir_, socket_;
  BackendPoolOptions options_;
  std::future<absl::Status> server_;
};

TEST_F(PoolTest, SocketPathIsPrivateAndKeyedByCommandAndMemory) {
  absl::StatusOr<std::string> a = BackendPoolSocket(Builtin(), 1 << 30, false);
  absl::StatusOr<std::string> b = BackendPoolSocket(Builtin(), 2 << 30, false);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_EQ(a->rfind(dir_, 0), 0u) << *a;
  ::setenv("REPROKIT_BACKEND_POOL_DIR", (dir_ + "/absent").c_str(), 1);
  EXPECT_EQ(BackendPoolSocket(Builtin(), 1 << 30, false).status().code(),
            absl::StatusCode::kNotFound);
  ::chmod(dir_.c_str(), 0777);
  ::setenv("REPROKIT_BACKEND_POOL_DIR", dir_.c_str(), 1);
  absl::StatusOr<std::string> open = BackendPoolSocket(Builtin(), 1 << 30, false);
  EXPECT_EQ(open.status().code(), absl::StatusCode::kFailedPrecondition) << open.status();
  ::chmod(dir_.c_str(), 0700);
}

TEST_F(PoolTest, ServesRequestsFromManyClients) {
  StartPool(2);
  std::vector<std::thread> clients;
  std::atomic<int> good{0};
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      absl::StatusOr<std::unique_ptr<PoolConnection>> conn =
          PoolConnection::Connect(socket_, absl::Seconds(30));
      ASSERT_TRUE(conn.ok()) << conn.status();
      EXPECT_EQ((*conn)->hello().name, "reprokit");
      for (int i = 1; i <= 3; ++i) {
        const int64_t id = c * 10 + i;
        BackendOutcome out = (*conn)->Run(Request(id), id, kOutputs, 1, absl::Seconds(30));
        ASSERT_EQ(out.kind, BackendOutcome::Kind::kReply) << out.what;
        ASSERT_EQ(out.reply.kind, RunReply::Kind::kResult);
        EXPECT_EQ(out.reply.id, id);
        EXPECT_EQ(out.reply.runs[0][0].GetDouble(3), 1.5 * 1.5);
        EXPECT_EQ(out.reply.runs[0][0].GetDouble(0), 0.0);
        ++good;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(good.load(), 12);
  absl::StatusOr<std::unique_ptr<PoolConnection>> conn = PoolConnection::Connect(socket_, {});
  ASSERT_TRUE(conn.ok());
  absl::StatusOr<Json> status = (*conn)->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->Find("served")->int_value(), 12);
  // Processes are reused, not started per request (the second may still be starting).
  EXPECT_LE(status->Find("started")->int_value(), 2);
}

TEST_F(PoolTest, CrashAndTimeoutComeBackAsOutcomesAndTheSlotRestarts) {
  StartPool(1);
  absl::StatusOr<std::unique_ptr<PoolConnection>> conn =
      PoolConnection::Connect(socket_, absl::Seconds(30));
  ASSERT_TRUE(conn.ok()) << conn.status();
  BackendOutcome out = (*conn)->Run(Request(1, "relu:crash"), 1, kOutputs, 1, absl::Seconds(30));
  EXPECT_EQ(out.kind, BackendOutcome::Kind::kCrashed) << out.what;
  EXPECT_EQ(out.signal, SIGSEGV);
  EXPECT_EQ(out.phase, "compile");
  EXPECT_TRUE((*conn)->alive());  // the pool's process died, not the connection

  out = (*conn)->Run(Request(2, "relu:hang"), 2, kOutputs, 1, absl::Milliseconds(500));
  EXPECT_EQ(out.kind, BackendOutcome::Kind::kTimedOut);
  EXPECT_EQ(out.phase, "compile");

  out = (*conn)->Run(Request(3), 3, kOutputs, 1, absl::Seconds(30));
  ASSERT_EQ(out.kind, BackendOutcome::Kind::kReply) << out.what;
  EXPECT_EQ(out.reply.kind, RunReply::Kind::kResult);
  absl::StatusOr<Json> status = (*conn)->Status();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->Find("started")->int_value(), 3);  // restarted after each failure
  EXPECT_EQ(status->Find("failed")->int_value(), 2);
}

TEST_F(PoolTest, StopsWhenIdleAndRemovesItsSocket) {
  StartPool(1, absl::Milliseconds(300));
  ASSERT_EQ(server_.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_TRUE(server_.get().ok());
  EXPECT_NE(::access(socket_.c_str(), F_OK), 0);
  EXPECT_FALSE(PoolConnection::Connect(socket_, {}).ok());
}

TEST_F(PoolTest, ASecondPoolOnTheSameSocketIsRefused) {
  StartPool(1);
  absl::Status second = ServeBackendPool(options_, nullptr);
  EXPECT_EQ(second.code(), absl::StatusCode::kAlreadyExists) << second;
}

TEST_F(PoolTest, AGoneStaleSocketIsReplaced) {
  // A pool killed with SIGKILL leaves its socket file: nothing answers on it.
  options_.command = Builtin();
  absl::StatusOr<std::string> socket = BackendPoolSocket(Builtin(), options_.limits.memory_bytes, true);
  ASSERT_TRUE(socket.ok());
  FILE* f = std::fopen(socket->c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  EXPECT_FALSE(PoolConnection::Connect(*socket, {}).ok());
  StartPool(1);
  EXPECT_TRUE(PoolConnection::Connect(socket_, {}).ok());
}

TEST(WarmUpTest, RunsASmallGraphOnADeclaredDeviceOnly) {
  absl::StatusOr<std::unique_ptr<BackendProcess>> p = BackendProcess::Start(Builtin(), {});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(WarmUp(**p, "cpu", absl::Seconds(30)).ok());
  // The built-in server declares cpu only here (no GPU in the test).
  if (!(*p)->hello().SupportsDevice("cuda")) {
    absl::Status cuda = WarmUp(**p, "cuda", absl::Seconds(30));
    EXPECT_EQ(cuda.code(), absl::StatusCode::kFailedPrecondition) << cuda;
    EXPECT_TRUE(absl::StrContains(cuda.message(), "does not declare device cuda")) << cuda;
  }
  // The process still serves after its warm-up.
  BackendOutcome out = (*p)->Run(Request(7), 7, kOutputs, 1, absl::Seconds(30));
  ASSERT_EQ(out.kind, BackendOutcome::Kind::kReply) << out.what;
  EXPECT_EQ(out.reply.kind, RunReply::Kind::kResult);
}

// A channel that records the run request it got and answers with a result.
class RecordingChannel : public BackendChannel {
 public:
  explicit RecordingChannel(BackendHello hello) : hello_(std::move(hello)) {}
  const BackendHello& hello() const override { return hello_; }
  bool alive() const override { return true; }
  BackendOutcome Run(const std::string& frame, int64_t, absl::Span<const TensorType>, int,
                     absl::Duration) override {
    std::string buffer = frame;
    absl::StatusOr<std::optional<Frame>> taken = TakeFrame(buffer, uint64_t{1} << 30);
    if (taken.ok() && taken->has_value()) {
      absl::StatusOr<RunRequest> request = DecodeRunRequest(**taken);
      if (request.ok()) requests.push_back(*std::move(request));
      frames.push_back(**std::move(taken));
    }
    BackendOutcome outcome;
    outcome.kind = BackendOutcome::Kind::kReply;
    outcome.reply.kind = RunReply::Kind::kResult;
    return outcome;
  }
  std::vector<RunRequest> requests;  // as DecodeRunRequest gives them (ONNX not decoded)
  std::vector<Frame> frames;

 private:
  BackendHello hello_;
};

TEST(WarmUpTest, ABackendThatAsksForOnnxGetsTheExportersBytes) {
  BackendHello hello;
  hello.name = "onnx_only";
  hello.devices = {"cpu", "cuda"};
  hello.dtypes = {"f32"};
  hello.ops = {"*"};
  hello.graph_formats = {"onnx"};
  RecordingChannel channel(hello);
  absl::Status none = WarmUp(channel, "cuda", absl::Seconds(1));
  EXPECT_EQ(none.code(), absl::StatusCode::kFailedPrecondition) << none;
  EXPECT_TRUE(channel.requests.empty());
  std::string exported_graph;
  GraphToOnnx to_onnx = [&](const compiler::Graph& g) -> absl::StatusOr<std::string> {
    exported_graph = g.name();
    return std::string("model bytes");
  };
  ASSERT_TRUE(WarmUp(channel, "cuda", absl::Seconds(1), to_onnx).ok());
  ASSERT_EQ(channel.requests.size(), 1u);
  EXPECT_EQ(channel.requests[0].device, "cuda");
  const Json* graph = channel.frames[0].header.Find("graph");
  ASSERT_NE(graph, nullptr);
  EXPECT_NE(graph->Find("onnx"), nullptr) << channel.frames[0].header.Dump();
  EXPECT_TRUE(absl::StrContains(channel.frames[0].payload, "model bytes"));
  EXPECT_EQ(exported_graph, "warm_up");
  EXPECT_FALSE(channel.requests[0].graph_text.empty());
  ASSERT_EQ(channel.requests[0].inputs.size(), 1u);
}

// With warm devices, ready means every process started and warmed up.
TEST_F(PoolTest, AWarmPoolIsReadyWithEveryProcessStarted) {
  options_.warm_devices = {"cpu"};
  StartPool(3);
  absl::StatusOr<std::unique_ptr<PoolConnection>> c =
      PoolConnection::Connect(socket_, absl::Seconds(30));
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<Json> status = (*c)->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->GetInt("started").value_or(-1), 3) << status->Dump();
  EXPECT_EQ(status->GetInt("idle").value_or(-1), 3) << status->Dump();
  // Warm-ups are not requests the pool served.
  EXPECT_EQ(status->GetInt("served").value_or(-1), 0) << status->Dump();
}

// The built-in server started by a shell that first waits: `slow_seconds` for
// every process but the first to start (`mkdir` elects it), and
// `every_seconds` for all of them.
BackendCommand SlowBuiltin(const std::string& dir, int slow_seconds, int every_seconds) {
  const std::string server =
      absl::StrCat(std::getenv("TEST_SRCDIR"), "/reprokit/repro/backend/builtin_server_main");
  return {"reprokit",
          {"/bin/sh", "-c",
           absl::StrCat("sleep ", every_seconds, "; mkdir '", dir, "/first' 2>/dev/null || sleep ",
                        slow_seconds, "; exec '", server, "'")}};
}

// Every process starts at once: a pool of 4 whose processes each take 2 s to
// start is ready (all warm) in about 2 s, not the first's 2 s and then the
// others' 2 s.
TEST_F(PoolTest, ProcessesStartSideBySide) {
  options_.warm_devices = {"cpu"};
  const absl::Time started = absl::Now();
  options_.command = SlowBuiltin(dir_, 0, 2);
  StartPoolWith(4);
  const absl::Duration took = absl::Now() - started;
  EXPECT_LT(took, absl::Milliseconds(3800)) << took;
  absl::StatusOr<std::unique_ptr<PoolConnection>> c =
      PoolConnection::Connect(socket_, absl::Seconds(30));
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<Json> status = (*c)->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->GetInt("started").value_or(-1), 4) << status->Dump();
}

// ready_when_first_warm (`capture --pool`): ready once one process is warm,
// while the others still start; they join the pool afterwards.
TEST_F(PoolTest, ReadyWhenFirstWarmDoesNotWaitForTheOthers) {
  options_.warm_devices = {"cpu"};
  options_.ready_when_first_warm = true;
  options_.command = SlowBuiltin(dir_, 3, 0);
  const absl::Time started = absl::Now();
  StartPoolWith(3);
  EXPECT_LT(absl::Now() - started, absl::Milliseconds(2500));
  absl::StatusOr<std::unique_ptr<PoolConnection>> c =
      PoolConnection::Connect(socket_, absl::Seconds(30));
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<Json> status = (*c)->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->GetInt("started").value_or(-1), 1) << status->Dump();
  BackendOutcome out = (*c)->Run(Request(1), 1, kOutputs, 1, absl::Seconds(30));
  EXPECT_EQ(out.kind, BackendOutcome::Kind::kReply) << out.what;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  int64_t now_started = 0;
  while (absl::Now() < deadline) {
    status = (*c)->Status();
    ASSERT_TRUE(status.ok()) << status.status();
    now_started = status->GetInt("started").value_or(-1);
    if (now_started == 3) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(now_started, 3);
  ::rmdir((dir_ + "/first").c_str());
}

// A backend that cannot start is reported, although its processes start in
// the background: no pool serves.
TEST_F(PoolTest, ABackendThatCannotStartIsAnError) {
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"/nonexistent/backend"},
        std::vector<std::string>{"/bin/sh", "-c", "exit 3"}}) {
    options_.command = {"broken", argv};
    options_.processes = 3;
    absl::StatusOr<std::string> socket =
        BackendPoolSocket(options_.command, options_.limits.memory_bytes, true);
    ASSERT_TRUE(socket.ok()) << socket.status();
    options_.socket_path = *socket;
    bool ready = false;
    absl::Status s = ServeBackendPool(options_, [&](const BackendHello&) { ready = true; });
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(ready);
  }
}

TEST(ChannelPoolTest, PrestartOpensEverySlotInTheBackground) {
  std::atomic<int> made{0};
  ChannelPool pool(
      [&]() -> absl::StatusOr<std::unique_ptr<BackendChannel>> {
        ++made;
        absl::StatusOr<std::unique_ptr<BackendProcess>> p = BackendProcess::Start(Builtin(), {});
        if (!p.ok()) return p.status();
        return std::unique_ptr<BackendChannel>(*std::move(p));
      },
      3);
  pool.Prestart();
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (pool.counts().idle < 3 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(10));
  EXPECT_EQ(pool.counts().idle, 3);
  std::vector<std::unique_ptr<BackendChannel>> held;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::unique_ptr<BackendChannel>> c = pool.Acquire();
    ASSERT_TRUE(c.ok());
    held.push_back(*std::move(c));
  }
  EXPECT_EQ(made.load(), 3);  // all three came from the prestart
  EXPECT_EQ(pool.counts().busy, 3);
  for (auto& c : held) pool.Release(std::move(c));
  EXPECT_EQ(pool.counts().idle, 3);
}

}  // namespace
}  // namespace rk::repro
