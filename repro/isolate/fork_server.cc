#include "repro/isolate/fork_server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace rk::repro::isolate_internal {
namespace {

enum class Op : uint32_t { kSpawn = 1, kReap = 2, kDiscard = 3 };

// Both ends are the same binary, so the messages are plain structs.
struct Request {
  Op op;
  int32_t arg;  // slot for kSpawn, pid otherwise
  int64_t grace_us;
};
struct SpawnReply {
  int32_t pid;
  int32_t error;  // errno of a failed fork, 0 on success
};
struct ReapReply {
  int32_t wait_status;
  int32_t killed;
  int32_t error;
};

// Exit code of a worker whose fork server vanished before it started.
constexpr int kOrphanExit = 125;

void SleepMicros(int64_t us) {
  timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

pid_t WaitRetrying(pid_t pid, int* status, int flags) {
  pid_t r;
  do {
    r = ::waitpid(pid, status, flags);
  } while (r < 0 && errno == EINTR);
  return r;
}

// Leaves the fork server with a known environment, whatever the owner had:
// its own process group (a terminal's Ctrl-C reaches only the owner, which
// decides), default signal dispositions (SIGCHLD ignored would make waitpid
// useless), nothing blocked, and no descriptors but its channel and stdio
// (another pool's channel held open here would never see end-of-stream).
void PrepareServerProcess(int channel) {
  ::setpgid(0, 0);
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  std::vector<int> to_close;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (dirent* entry = ::readdir(dir)) {
      int fd = std::atoi(entry->d_name);
      if (fd > 2 && fd != channel && fd != ::dirfd(dir)) to_close.push_back(fd);
    }
    ::closedir(dir);
  }
  for (int fd : to_close) ::close(fd);
}

void HandleSpawn(int channel, int slot, pid_t server_pid, const WorkerMain& main,
                 std::set<pid_t>* live) {
  SpawnReply reply{-1, 0};
  absl::StatusOr<std::pair<UniqueFd, UniqueFd>> job = MakeSocketPair();
  int out[2] = {-1, -1};
  if (!job.ok()) {
    reply.error = EMFILE;
  } else if (::pipe2(out, O_CLOEXEC) != 0) {
    reply.error = errno;
  }
  if (reply.error != 0) {
    (void)SendWithFds(channel, std::string_view(reinterpret_cast<char*>(&reply), sizeof(reply)), {});
    return;
  }
  UniqueFd out_read(out[0]), out_write(out[1]);
  pid_t pid = ::fork();
  if (pid == 0) {
    // The worker dies with its fork server; the check closes the race with a
    // server that died before prctl took effect.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != server_pid) ::_exit(kOrphanExit);
    ::close(channel);
    ::close(job->first.get());
    ::close(out_read.get());
    main(slot, job->second.get(), out_write.get());
    ::_exit(kOrphanExit);
  }
  if (pid < 0) {
    reply.error = errno;
    (void)SendWithFds(channel, std::string_view(reinterpret_cast<char*>(&reply), sizeof(reply)), {});
    return;
  }
  live->insert(pid);
  reply.pid = pid;
  ::fcntl(job->first.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(out_read.get(), F_SETFL, O_NONBLOCK);
  (void)SendWithFds(channel, std::string_view(reinterpret_cast<char*>(&reply), sizeof(reply)),
                    {job->first.get(), out_read.get()});
}

// Waits up to `grace_us` for `pid` to exit: on a pidfd when the kernel has
// them (wakes exactly at death), else by polling with growing sleeps.
void AwaitExit(pid_t pid, int64_t grace_us) {
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    int64_t timeout_ms = (grace_us + 999) / 1000;
    while (::poll(&p, 1, static_cast<int>(timeout_ms)) < 0 && errno == EINTR) {
    }
    ::close(pidfd);
    return;
  }
  int64_t waited_us = 0, step_us = 20;
  while (waited_us < grace_us) {
    siginfo_t info{};
    // WNOWAIT: look without reaping; the caller reaps.
    if (::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR) return;
    if (info.si_pid == pid) return;
    SleepMicros(step_us);
    waited_us += step_us;
    step_us = std::min<int64_t>(step_us * 2, 2000);
  }
}

ReapReply HandleReap(pid_t pid, int64_t grace_us, std::set<pid_t>* live) {
  ReapReply reply{0, 0, 0};
  if (live->count(pid) == 0) {
    reply.error = ECHILD;
    return reply;
  }
  if (grace_us > 0) AwaitExit(pid, grace_us);
  int status = 0;
  pid_t r = WaitRetrying(pid, &status, WNOHANG);
  if (r == 0) {
    ::kill(pid, SIGKILL);
    r = WaitRetrying(pid, &status, 0);
    reply.killed = 1;
  }
  if (r == pid) {
    reply.wait_status = status;
  } else {
    reply.error = errno;
  }
  live->erase(pid);
  return reply;
}

[[noreturn]] void ServeForks(int channel, const WorkerMain& main) {
  PrepareServerProcess(channel);
  const pid_t self = ::getpid();
  std::set<pid_t> live;
  while (true) {
    Request req;
    absl::StatusOr<bool> got = ReadExact(channel, reinterpret_cast<char*>(&req), sizeof(req));
    if (!got.ok() || !*got) break;
    switch (req.op) {
      case Op::kSpawn:
        HandleSpawn(channel, req.arg, self, main, &live);
        break;
      case Op::kReap: {
        ReapReply reply = HandleReap(req.arg, req.grace_us, &live);
        (void)WriteAll(channel, std::string_view(reinterpret_cast<char*>(&reply), sizeof(reply)));
        break;
      }
      case Op::kDiscard:
        if (live.count(req.arg) != 0) HandleReap(req.arg, 0, &live);
        break;
    }
  }
  for (pid_t pid : live) ::kill(pid, SIGKILL);
  for (pid_t pid : live) WaitRetrying(pid, nullptr, 0);
  ::_exit(0);
}

absl::Status SendRequest(int channel, const Request& req) {
  return WriteAll(channel, std::string_view(reinterpret_cast<const char*>(&req), sizeof(req)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ForkServer>> ForkServer::Start(WorkerMain main) {
  absl::StatusOr<std::pair<UniqueFd, UniqueFd>> channel = MakeSocketPair();
  if (!channel.ok()) return channel.status();
  // Flush stdio so buffered output is not written twice by the copies.
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    return absl::ResourceExhaustedError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(channel->first.get());
    ServeForks(channel->second.get(), main);
  }
  channel->second.Reset();
  return std::unique_ptr<ForkServer>(new ForkServer(pid, std::move(channel->first)));
}

ForkServer::~ForkServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    channel_.Reset();
  }
  WaitRetrying(pid_, nullptr, 0);
}

absl::StatusOr<SpawnedWorker> ForkServer::Spawn(int slot) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = SendRequest(channel_.get(), Request{Op::kSpawn, slot, 0}); !s.ok()) {
    return absl::UnavailableError(absl::StrCat("fork server gone: ", s.message()));
  }
  std::string payload;
  std::vector<UniqueFd> fds;
  if (absl::Status s = ReceiveWithFds(channel_.get(), &payload, sizeof(SpawnReply), &fds, 2);
      !s.ok()) {
    return absl::UnavailableError(absl::StrCat("fork server gone: ", s.message()));
  }
  SpawnReply reply;
  std::memcpy(&reply, payload.data(), sizeof(reply));
  if (reply.error != 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot start a worker: ", std::strerror(reply.error)));
  }
  if (fds.size() != 2) return absl::InternalError("fork server sent no descriptors");
  SpawnedWorker worker;
  worker.pid = reply.pid;
  worker.job = std::move(fds[0]);
  worker.output = std::move(fds[1]);
  return worker;
}

absl::StatusOr<ReapResult> ForkServer::Reap(pid_t pid, absl::Duration grace) {
  std::lock_guard<std::mutex> lock(mu_);
  Request req{Op::kReap, pid, absl::ToInt64Microseconds(grace)};
  if (absl::Status s = SendRequest(channel_.get(), req); !s.ok()) {
    return absl::UnavailableError(absl::StrCat("fork server gone: ", s.message()));
  }
  ReapReply reply;
  absl::StatusOr<bool> got = ReadExact(channel_.get(), reinterpret_cast<char*>(&reply), sizeof(reply));
  if (!got.ok() || !*got) return absl::UnavailableError("fork server gone");
  if (reply.error != 0) {
    return absl::InternalError(absl::StrCat("waitpid: ", std::strerror(reply.error)));
  }
  return ReapResult{reply.wait_status, reply.killed != 0};
}

void ForkServer::Discard(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  (void)SendRequest(channel_.get(), Request{Op::kDiscard, pid, 0});
}

}  // namespace rk::repro::isolate_internal
