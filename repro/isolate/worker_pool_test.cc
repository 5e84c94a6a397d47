#include "repro/isolate/worker_pool.h"

#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repro/isolate/job_limits.h"

namespace rk::repro {
namespace {

using ::testing::HasSubstr;
using Kind = JobOutcome::Kind;

char* volatile g_keep_alive = nullptr;

ABSL_ATTRIBUTE_NOINLINE void CrashInFusion() {
  volatile int* volatile target = nullptr;
  *target = 1;
}

[[noreturn]] ABSL_ATTRIBUTE_NOINLINE void SpinForever() {
  volatile uint64_t counter = 0;
  while (true) counter = counter + 1;
}

ABSL_ATTRIBUTE_NOINLINE void AllocateGigabyte() {
  g_keep_alive = new char[size_t{1} << 30];
  g_keep_alive[0] = 1;
}

// std::bad_alloc cannot leave a noexcept function: it becomes std::terminate.
ABSL_ATTRIBUTE_NOINLINE void AllocateGigabyteNoexcept() noexcept { AllocateGigabyte(); }

// Requests are tiny commands, so every test shares one handler.
absl::StatusOr<std::string> TestJob(std::string_view request) {
  if (request.starts_with("echo:")) return std::string(request.substr(5));
  if (request == "error") return absl::NotFoundError("no such graph");
  if (request == "segv") {
    ReportPhase("parse");
    ReportPhase("compile:fusion");
    CrashInFusion();
  }
  if (request == "abort") std::abort();
  if (request == "hang") {
    ReportPhase("run");
    SpinForever();
  }
  if (request == "oom") AllocateGigabyte();
  if (request == "oom_noexcept") AllocateGigabyteNoexcept();
  if (request == "exit") ::_exit(3);
  if (request == "sigkill") ::raise(SIGKILL);
  if (request == "print") {
    std::fprintf(stderr, "warning: about to print a lot\n");
    std::printf("%s\n", std::string(10000, 'x').c_str());
    std::cerr << "last words" << std::endl;
    return std::string("printed");
  }
  if (request == "reserve" || request == "lift_and_reserve") {
    // 16 GiB of address space, no memory: what cuInit does, much larger than
    // TestLimits().memory_bytes.
    if (request == "lift_and_reserve") LiftAddressSpaceLimit();
    void* p = ::mmap(nullptr, size_t{16} << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (p == MAP_FAILED) return std::string("refused");
    ::munmap(p, size_t{16} << 30);
    return std::string("reserved");
  }
  if (request == "pid") return absl::StrCat(::getpid());
  if (request == "count") {
    static int calls = 0;
    return absl::StrCat(++calls);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown request: ", std::string(request)));
}

IsolationLimits TestLimits() {
  IsolationLimits limits;
  limits.timeout = absl::Seconds(1);
  limits.memory_bytes = int64_t{256} << 20;
  return limits;
}

std::unique_ptr<WorkerPool> MakePool(int workers, WorkerLifetime lifetime) {
  auto pool = WorkerPool::Create(workers, TestJob, TestLimits(), lifetime);
  EXPECT_TRUE(pool.ok()) << pool.status();
  return pool.ok() ? *std::move(pool) : nullptr;
}

std::string Describe(const JobOutcome& out) {
  return absl::StrCat(std::string(JobOutcomeKindName(out.kind)), " ", out.error.ToString(), " signal=",
                      out.signal, " stderr=[", out.stderr_tail, "]");
}

struct ProcInfo {
  int pid;
  int ppid;
  char state;
};

std::vector<ProcInfo> AllProcesses() {
  std::vector<ProcInfo> out;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return out;
  while (dirent* entry = ::readdir(dir)) {
    int pid;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string line;
    if (!std::getline(stat, line)) continue;
    // "pid (comm) state ppid ...": comm may hold spaces; parse after ')'.
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    ProcInfo info{pid, 0, '?'};
    rest >> info.state >> info.ppid;
    out.push_back(info);
  }
  ::closedir(dir);
  return out;
}

// Each test gets a pool of one worker with the lifetime under test.
class WorkerPoolTest : public ::testing::TestWithParam<WorkerLifetime> {
 protected:
  void SetUp() override {
    pool_ = MakePool(1, GetParam());
    ASSERT_NE(pool_, nullptr);
  }

  std::unique_ptr<WorkerPool> pool_;
};

INSTANTIATE_TEST_SUITE_P(Lifetimes, WorkerPoolTest,
                         ::testing::Values(WorkerLifetime::kReused, WorkerLifetime::kOneJob),
                         [](const auto& info) {
                           return info.param == WorkerLifetime::kReused ? "Reused" : "OneJob";
                         });

TEST_P(WorkerPoolTest, OkJobReturnsTheResponse) {
  JobOutcome out = pool_->Run("echo:hello");
  EXPECT_EQ(out.kind, Kind::kOk) << Describe(out);
  EXPECT_EQ(out.response, "hello");
  EXPECT_TRUE(out.backtrace.empty());
  EXPECT_GT(out.wall, absl::ZeroDuration());
}

TEST_P(WorkerPoolTest, LargeRequestsAndResponsesRoundTrip) {
  // Its own pool with a generous timeout: 8 MiB each way took over the
  // fixture's 1 s on a loaded machine and under ThreadSanitizer.
  IsolationLimits limits = TestLimits();
  limits.timeout = absl::Seconds(60);
  auto pool = WorkerPool::Create(1, TestJob, limits, GetParam());
  ASSERT_TRUE(pool.ok()) << pool.status();
  std::string big(8 << 20, 'q');
  big[12345] = 'z';
  JobOutcome out = (*pool)->Run("echo:" + big);
  ASSERT_EQ(out.kind, Kind::kOk) << Describe(out);
  EXPECT_EQ(out.response, big);
}

TEST_P(WorkerPoolTest, HandlerErrorStatusPassesThrough) {
  JobOutcome out = pool_->Run("error");
  EXPECT_EQ(out.kind, Kind::kError);
  EXPECT_EQ(out.error.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(out.error.message(), "no such graph");
}

TEST_P(WorkerPoolTest, SegfaultIsACrashAndTheNextJobRunsOnAReplacement) {
  std::string first_pid = pool_->Run("pid").response;
  JobOutcome crash = pool_->Run("segv");
  EXPECT_EQ(crash.kind, Kind::kCrashed) << Describe(crash);
  EXPECT_EQ(crash.signal, SIGSEGV);
  EXPECT_THAT(std::string(crash.error.message()), HasSubstr("SIGSEGV"));

  JobOutcome next = pool_->Run("pid");
  EXPECT_EQ(next.kind, Kind::kOk) << Describe(next);
  EXPECT_NE(next.response, first_pid);
  EXPECT_EQ(pool_->Run("echo:still here").response, "still here");
}

TEST_P(WorkerPoolTest, PhaseAndStackReportedBeforeTheCrashAreReturned) {
  JobOutcome crash = pool_->Run("segv");
  ASSERT_EQ(crash.kind, Kind::kCrashed) << Describe(crash);
  EXPECT_EQ(crash.phase, "compile:fusion");
  ASSERT_FALSE(crash.backtrace.empty());
  EXPECT_THAT(crash.backtrace[0], HasSubstr("CrashInFusion"));
  // The next job starts with a clean phase.
  EXPECT_EQ(pool_->Run("echo:x").phase, "");
}

TEST_P(WorkerPoolTest, AbortIsSigabrt) {
  JobOutcome out = pool_->Run("abort");
  EXPECT_EQ(out.kind, Kind::kCrashed) << Describe(out);
  EXPECT_EQ(out.signal, SIGABRT);
  bool saw_abort = false;
  for (const std::string& frame : out.backtrace) saw_abort |= absl::StrContains(frame, "abort");
  EXPECT_TRUE(saw_abort) << "no abort frame in the stack";
}

TEST_P(WorkerPoolTest, StdoutAndStderrAreCapturedAsATail) {
  JobOutcome out = pool_->Run("print");
  ASSERT_EQ(out.kind, Kind::kOk) << Describe(out);
  EXPECT_LE(out.stderr_tail.size(), 4096u);
  EXPECT_TRUE(absl::EndsWith(out.stderr_tail, "xxx\nlast words\n")) << out.stderr_tail;
  // The next job's tail holds only its own output.
  EXPECT_EQ(pool_->Run("echo:quiet").stderr_tail, "");
}

TEST_P(WorkerPoolTest, InfiniteLoopTimesOutWithItsPhaseAndStack) {
  JobOutcome out = pool_->Run("hang");
  EXPECT_EQ(out.kind, Kind::kTimedOut) << Describe(out);
  EXPECT_EQ(out.error.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_GE(out.wall, absl::Seconds(1));
  EXPECT_LT(out.wall, absl::Seconds(1) + absl::Milliseconds(500));
  EXPECT_EQ(out.phase, "run");
#if !defined(__SANITIZE_THREAD__)
  // ThreadSanitizer defers a signal to the next call it intercepts, which a
  // busy loop never makes: no stack is sampled from it under TSan.
  ASSERT_FALSE(out.backtrace.empty());
  EXPECT_THAT(out.backtrace[0], HasSubstr("SpinForever"));
#endif
  EXPECT_EQ(pool_->Run("echo:after").response, "after");
}

TEST_P(WorkerPoolTest, AllocationBeyondTheLimitIsOutOfMemory) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "no address-space limit under AddressSanitizer or ThreadSanitizer";
#endif
  JobOutcome thrown = pool_->Run("oom");
  EXPECT_EQ(thrown.kind, Kind::kOutOfMemory) << Describe(thrown);
  EXPECT_EQ(thrown.error.code(), absl::StatusCode::kResourceExhausted);

  JobOutcome terminated = pool_->Run("oom_noexcept");
  EXPECT_EQ(terminated.kind, Kind::kOutOfMemory) << Describe(terminated);
  EXPECT_EQ(terminated.signal, SIGABRT);
  EXPECT_EQ(pool_->Run("echo:fine").response, "fine");
}

TEST_P(WorkerPoolTest, SigkillThePoolDidNotSendCountsAsOutOfMemory) {
  JobOutcome out = pool_->Run("sigkill");
  EXPECT_EQ(out.kind, Kind::kOutOfMemory) << Describe(out);
  EXPECT_EQ(out.signal, SIGKILL);
  EXPECT_THAT(std::string(out.error.message()), HasSubstr("OOM killer"));
}

TEST_P(WorkerPoolTest, WorkerThatExitsIsLost) {
  JobOutcome out = pool_->Run("exit");
  EXPECT_EQ(out.kind, Kind::kWorkerLost) << Describe(out);
  EXPECT_THAT(std::string(out.error.message()), HasSubstr("status 3"));
  EXPECT_EQ(pool_->Run("echo:back").response, "back");
}

TEST(WorkerPoolLifetimeTest, ReusedWorkersKeepStateOneJobWorkersDoNot) {
  auto reused = MakePool(1, WorkerLifetime::kReused);
  auto fresh = MakePool(1, WorkerLifetime::kOneJob);
  ASSERT_NE(reused, nullptr);
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(reused->Run("count").response, "1");
  EXPECT_EQ(reused->Run("count").response, "2");
  EXPECT_EQ(fresh->Run("count").response, "1");
  EXPECT_EQ(fresh->Run("count").response, "1");
}

#if !defined(__SANITIZE_ADDRESS__)
TEST(WorkerPoolLimitTest, LiftedAddressSpaceLimitAllowsLargeReservations) {
  auto pool = MakePool(1, WorkerLifetime::kReused);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->Run("reserve").response, "refused");
  EXPECT_EQ(pool->Run("lift_and_reserve").response, "reserved");
  // The next job in the same worker is limited again.
  EXPECT_EQ(pool->Run("reserve").response, "refused");
}
#endif

TEST(WorkerPoolCreateTest, RejectsBadArguments) {
  EXPECT_EQ(WorkerPool::Create(0, TestJob).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WorkerPool::Create(1, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  IsolationLimits no_time;
  no_time.timeout = absl::ZeroDuration();
  EXPECT_EQ(WorkerPool::Create(1, TestJob, no_time).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(WorkerPoolConcurrencyTest, FourThreadsShareTwoWorkers) {
  auto pool = MakePool(2, WorkerLifetime::kReused);
  ASSERT_NE(pool, nullptr);
  constexpr int kThreads = 4, kJobsPerThread = 60;
  std::atomic<int> wrong{0}, crashes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kJobsPerThread; ++i) {
        if (i % 15 == 7) {
          crashes += pool->Run("segv").kind == Kind::kCrashed;
          continue;
        }
        std::string tag = absl::StrCat(t, ":", i);
        JobOutcome out = pool->Run("echo:" + tag);
        wrong += out.kind != Kind::kOk || out.response != tag;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(crashes.load(), kThreads * 4);
}

TEST(WorkerPoolProcessTest, CrashesLeaveNoZombiesAndTheDestructorLeavesNoProcesses) {
  auto pool = MakePool(2, WorkerLifetime::kReused);
  ASSERT_NE(pool, nullptr);
  const int server = pool->fork_server_pid();
  for (int i = 0; i < 200; ++i) {
    const char* request = i % 10 == 3 ? "segv" : i % 10 == 6 ? "abort" : "echo:ok";
    JobOutcome out = pool->Run(request);
    ASSERT_EQ(out.kind, request[0] == 'e' ? Kind::kOk : Kind::kCrashed) << i << Describe(out);
  }
  int zombies = 0, workers = 0;
  for (const ProcInfo& p : AllProcesses()) {
    if (p.ppid != server && p.ppid != ::getpid()) continue;
    zombies += p.state == 'Z';
    workers += p.ppid == server;
  }
  EXPECT_EQ(zombies, 0);
  EXPECT_LE(workers, 2);
  EXPECT_GE(workers, 1);

  pool.reset();
  EXPECT_EQ(::kill(server, 0), -1) << "fork server still exists";
  for (const ProcInfo& p : AllProcesses()) {
    EXPECT_NE(p.ppid, ::getpid()) << "leftover child " << p.pid << " state " << p.state;
    EXPECT_NE(p.ppid, server) << "leftover worker " << p.pid;
  }
}

}  // namespace
}  // namespace rk::repro
