#include "repro/isolate/worker_pool.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/debugging/symbolize.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/parallel_for.h"
#include "repro/isolate/fd_io.h"
#include "repro/isolate/fork_server.h"
#include "repro/isolate/worker_main.h"
#include "repro/isolate/worker_slot.h"

namespace rk::repro {
namespace {

using isolate_internal::ForkServer;
using isolate_internal::Frame;
using isolate_internal::FrameDecoder;
using isolate_internal::StackKind;
using isolate_internal::UniqueFd;
using isolate_internal::WorkerSlot;

constexpr size_t kTailBytes = 4096;
// How long a timed-out worker gets to record where it hangs.
constexpr absl::Duration kHangDumpGrace = absl::Milliseconds(100);
// How long a worker that closed its channel gets to finish dying.
constexpr absl::Duration kExitGrace = absl::Seconds(1);
constexpr size_t kMaxReportedFrames = 32;

// Keeps the last kTailBytes of a stream.
class OutputTail {
 public:
  void Append(std::string_view bytes) {
    text_.append(bytes);
    if (text_.size() > 4 * kTailBytes) text_.erase(0, text_.size() - kTailBytes);
  }
  std::string Take() {
    if (text_.size() > kTailBytes) text_.erase(0, text_.size() - kTailBytes);
    return std::move(text_);
  }

 private:
  std::string text_;
};

// Reads what is there without blocking; false once the pipe reached its end.
bool DrainOutput(int fd, OutputTail* tail) {
  char buf[16384];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n > 0) {
      tail->Append(std::string_view(buf, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0;  // EAGAIN: open but empty; 0: end; other errors: give up
  }
}

std::string SignalName(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", sig);
}

// The stack a worker's handler left in its slot, innermost first, starting at
// the interrupted instruction when it can be found among the frames (which
// hides the handler and the signal trampoline). The worker is a fork of this
// process, so its code sits at the same addresses as ours.
std::vector<std::string> SymbolizeStack(const WorkerSlot& slot) {
  std::vector<std::string> out;
  if (slot.stack_kind.load(std::memory_order_acquire) ==
      static_cast<uint32_t>(StackKind::kNone)) {
    return out;
  }
  size_t n = std::min<size_t>(slot.num_frames.load(std::memory_order_relaxed),
                              isolate_internal::kMaxStackFrames);
  uint64_t pc = slot.interrupted_pc.load(std::memory_order_relaxed);
  size_t first = std::min<size_t>(2, n);
  for (size_t i = 0; i < n; ++i) {
    if (reinterpret_cast<uint64_t>(slot.frames[i]) == pc) {
      first = i;
      break;
    }
  }
  // absl::Symbolize is thread-safe, but the lock of its cache is invisible
  // to TSan in Debian's Abseil; one stack at a time costs nothing (only
  // crashes are symbolized) and keeps the TSan stage free of false reports.
  static std::mutex symbolize_mu;
  std::lock_guard<std::mutex> lock(symbolize_mu);
  for (size_t i = first; i < n && out.size() < kMaxReportedFrames; ++i) {
    char* addr = static_cast<char*>(slot.frames[i]);
    // Return addresses point after the call; look up the call itself.
    char* lookup = (i == first && reinterpret_cast<uint64_t>(addr) == pc) ? addr : addr - 1;
    char name[1024];
    if (absl::Symbolize(lookup, name, sizeof(name))) {
      out.push_back(absl::StrFormat("%p %s", addr, name));
    } else {
      out.push_back(absl::StrFormat("%p (unknown)", addr));
    }
  }
  return out;
}

std::string ReadPhase(const WorkerSlot& slot) {
  uint32_t size = slot.phase_size.load(std::memory_order_acquire);
  return std::string(slot.phase, std::min<size_t>(size, kMaxPhaseLength));
}

}  // namespace

std::string_view JobOutcomeKindName(JobOutcome::Kind kind) {
  switch (kind) {
    case JobOutcome::Kind::kOk: return "ok";
    case JobOutcome::Kind::kError: return "error";
    case JobOutcome::Kind::kCrashed: return "crashed";
    case JobOutcome::Kind::kTimedOut: return "timed_out";
    case JobOutcome::Kind::kOutOfMemory: return "out_of_memory";
    case JobOutcome::Kind::kWorkerLost: return "worker_lost";
  }
  return "unknown";
}

class WorkerPool::Impl {
 public:
  Impl(int num_workers, JobHandler handler, IsolationLimits limits, WorkerLifetime lifetime)
      : handler_(std::move(handler)), limits_(limits), lifetime_(lifetime), workers_(num_workers) {
    for (int i = 0; i < num_workers; ++i) workers_[i].index = i;
  }
  ~Impl();

  absl::Status Start();
  JobOutcome Run(std::string_view request);
  int num_workers() const { return static_cast<int>(workers_.size()); }
  int fork_server_pid() const { return server_->pid(); }

 private:
  struct Worker {
    int index = 0;
    pid_t pid = -1;
    UniqueFd job;
    UniqueFd output;
    bool busy = false;
  };
  enum class Exchange { kAnswered, kChannelClosed, kTimedOut, kBroken };

  Worker* Acquire();
  void Release(Worker* worker);
  absl::Status EnsureStarted(Worker& worker);
  void Retire(Worker& worker);
  Exchange Talk(Worker& worker, std::string_view request, absl::Time deadline,
                OutputTail* tail, Frame* answer);
  void DecodeAnswer(Frame answer, JobOutcome* out);
  void CaptureHang(Worker& worker, OutputTail* tail);
  void ClassifyDeath(Worker& worker, Exchange how, OutputTail* tail, JobOutcome* out);

  WorkerSlot& slot(const Worker& worker) { return slots_[worker.index]; }

  const JobHandler handler_;
  const IsolationLimits limits_;
  const WorkerLifetime lifetime_;
  WorkerSlot* slots_ = nullptr;
  size_t slots_bytes_ = 0;
  std::unique_ptr<ForkServer> server_;

  // Standard, not Abseil, locks: TSan sees through pthread, while Debian's
  // Abseil is built without its annotations (docs/RELIABILITY.md).
  std::mutex mu_;
  std::condition_variable worker_freed_;
  // The vector is fixed after construction; `busy` is guarded by mu_, the
  // rest of a Worker belongs to the thread that set `busy`.
  std::vector<Worker> workers_;
};

absl::Status WorkerPool::Impl::Start() {
  slots_bytes_ = sizeof(WorkerSlot) * workers_.size();
  void* mem = ::mmap(nullptr, slots_bytes_, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    slots_bytes_ = 0;
    return absl::ResourceExhaustedError(absl::StrCat("mmap: ", std::strerror(errno)));
  }
  slots_ = static_cast<WorkerSlot*>(mem);  // zero-filled: a valid empty state
  isolate_internal::PrepareWorkerImage();
  absl::StatusOr<std::unique_ptr<ForkServer>> server =
      ForkServer::Start([this](int index, int job_fd, int output_fd) {
        // Workers run side by side: each compiles on its share of the threads.
        const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        SetCompileThreadLimit(std::max(1, hardware / num_workers()));
        isolate_internal::WorkerConfig config;
        config.slot = &slots_[index];
        config.handler = &handler_;
        config.limits = limits_;
        config.one_job = lifetime_ == WorkerLifetime::kOneJob;
        isolate_internal::RunWorker(config, job_fd, output_fd);
      });
  if (!server.ok()) return server.status();
  server_ = *std::move(server);
  if (lifetime_ == WorkerLifetime::kReused) {
    for (Worker& worker : workers_) {
      if (absl::Status s = EnsureStarted(worker); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

WorkerPool::Impl::~Impl() {
  server_.reset();  // the fork server kills and reaps every worker
  if (slots_ != nullptr) ::munmap(slots_, slots_bytes_);
}

WorkerPool::Impl::Worker* WorkerPool::Impl::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    Worker* idle = nullptr;
    for (Worker& worker : workers_) {
      if (worker.busy) continue;
      if (idle == nullptr || (idle->pid < 0 && worker.pid >= 0)) idle = &worker;
    }
    if (idle != nullptr) {
      idle->busy = true;
      return idle;
    }
    worker_freed_.wait(lock);
  }
}

void WorkerPool::Impl::Release(Worker* worker) {
  std::lock_guard<std::mutex> lock(mu_);
  worker->busy = false;
  worker_freed_.notify_one();
}

absl::Status WorkerPool::Impl::EnsureStarted(Worker& worker) {
  if (worker.pid >= 0) return absl::OkStatus();
  absl::StatusOr<isolate_internal::SpawnedWorker> spawned = server_->Spawn(worker.index);
  if (!spawned.ok()) return spawned.status();
  worker.pid = spawned->pid;
  worker.job = std::move(spawned->job);
  worker.output = std::move(spawned->output);
  return absl::OkStatus();
}

void WorkerPool::Impl::Retire(Worker& worker) {
  if (worker.pid >= 0) server_->Discard(worker.pid);
  worker.pid = -1;
  worker.job.Reset();
  worker.output.Reset();
}

// Sends the request and waits for the answer, draining the worker's output
// all the while (a full pipe would otherwise stall a chatty job).
WorkerPool::Impl::Exchange WorkerPool::Impl::Talk(Worker& worker, std::string_view request,
                                                   absl::Time deadline, OutputTail* tail,
                                                   Frame* answer) {
  const std::string header =
      isolate_internal::EncodeFrameHeader(isolate_internal::kRequest, request.size());
  const size_t total = header.size() + request.size();
  size_t sent = 0;
  bool output_open = true;
  FrameDecoder decoder;
  char buf[65536];
  while (true) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return Exchange::kTimedOut;
    pollfd fds[2] = {{worker.job.get(), static_cast<short>(POLLIN | (sent < total ? POLLOUT : 0)), 0},
                     {worker.output.get(), POLLIN, 0}};
    timespec ts = absl::ToTimespec(left);
    int ready = ::ppoll(fds, output_open ? 2 : 1, &ts, nullptr);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Exchange::kBroken;
    }
    if (output_open && fds[1].revents != 0) output_open = DrainOutput(worker.output.get(), tail);
    if ((fds[0].revents & POLLOUT) && sent < total) {
      std::string_view piece = sent < header.size()
                                   ? std::string_view(header).substr(sent)
                                   : request.substr(sent - header.size());
      ssize_t n = ::send(worker.job.get(), piece.data(), piece.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) sent += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) return Exchange::kChannelClosed;
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = ::recv(worker.job.get(), buf, sizeof(buf), MSG_DONTWAIT);
      if (n == 0) return Exchange::kChannelClosed;
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        return Exchange::kChannelClosed;
      }
      absl::StatusOr<size_t> used = decoder.Feed(std::string_view(buf, static_cast<size_t>(n)));
      if (!used.ok() || *used != static_cast<size_t>(n)) return Exchange::kBroken;
      if (decoder.Complete()) {
        *answer = decoder.Take();
        return Exchange::kAnswered;
      }
    }
  }
}

void WorkerPool::Impl::DecodeAnswer(Frame answer, JobOutcome* out) {
  switch (answer.tag) {
    case isolate_internal::kResponseOk:
      out->kind = JobOutcome::Kind::kOk;
      out->response = std::move(answer.payload);
      return;
    case isolate_internal::kResponseError:
      if (answer.payload.size() >= 4) {
        uint32_t code = 0;
        for (int i = 3; i >= 0; --i) code = (code << 8) | static_cast<unsigned char>(answer.payload[i]);
        out->kind = JobOutcome::Kind::kError;
        out->error = absl::Status(static_cast<absl::StatusCode>(code),
                                  answer.payload.substr(4));
        if (out->error.ok()) out->error = absl::UnknownError("handler failed without a message");
        return;
      }
      break;
    case isolate_internal::kResponseOutOfMemory:
      out->kind = JobOutcome::Kind::kOutOfMemory;
      out->error = absl::ResourceExhaustedError(
          absl::StrCat("the job threw std::bad_alloc (memory limit: ", limits_.memory_bytes,
                       " bytes of address space)"));
      return;
  }
  out->kind = JobOutcome::Kind::kWorkerLost;
  out->error = absl::DataLossError(absl::StrCat("malformed answer (tag ", answer.tag, ")"));
}

void WorkerPool::Impl::CaptureHang(Worker& worker, OutputTail* tail) {
  if (::kill(worker.pid, isolate_internal::kHangDumpSignal) != 0) return;
  absl::Time until = absl::Now() + kHangDumpGrace;
  while (slot(worker).stack_kind.load(std::memory_order_acquire) ==
             static_cast<uint32_t>(StackKind::kNone) &&
         absl::Now() < until) {
    DrainOutput(worker.output.get(), tail);
    absl::SleepFor(absl::Milliseconds(1));
  }
}

// The worker is gone or going: reap it and say why it went. Heuristics are
// described in docs/ISOLATION.md.
void WorkerPool::Impl::ClassifyDeath(Worker& worker, Exchange how, OutputTail* tail,
                                     JobOutcome* out) {
  const WorkerSlot& s = slot(worker);
  absl::Duration grace = kExitGrace;
  if (how == Exchange::kTimedOut || how == Exchange::kBroken) {
    ::kill(worker.pid, SIGKILL);
    grace = absl::ZeroDuration();
  }
  absl::StatusOr<isolate_internal::ReapResult> reaped = server_->Reap(worker.pid, grace);
  worker.pid = -1;  // reaped (or the fork server is gone): nothing to discard
  DrainOutput(worker.output.get(), tail);
  Retire(worker);
  if (how == Exchange::kTimedOut) {
    out->kind = JobOutcome::Kind::kTimedOut;
    out->error = absl::DeadlineExceededError(
        absl::StrCat("job exceeded its timeout of ", absl::FormatDuration(limits_.timeout)));
    return;
  }
  out->kind = JobOutcome::Kind::kWorkerLost;
  if (!reaped.ok()) {
    out->error = reaped.status();
    return;
  }
  if (how == Exchange::kBroken) {
    out->error = absl::DataLossError("broken channel to the worker; killed it");
    return;
  }
  const int status = reaped->wait_status;
  const bool allocation_failed = s.allocation_failed.load(std::memory_order_relaxed) != 0;
  if (reaped->killed) {
    out->error = absl::InternalError("worker closed its channel but kept running; killed it");
  } else if (WIFSIGNALED(status)) {
    out->signal = WTERMSIG(status);
    const std::string name = SignalName(out->signal);
    if (allocation_failed) {
      out->kind = JobOutcome::Kind::kOutOfMemory;
      out->error = absl::ResourceExhaustedError(
          absl::StrCat("an allocation failed, then the worker died from ", name));
    } else if (out->signal == SIGKILL) {
      out->kind = JobOutcome::Kind::kOutOfMemory;
      out->error = absl::ResourceExhaustedError(
          "worker killed by SIGKILL from outside the pool (most likely the kernel's OOM killer)");
    } else {
      out->kind = JobOutcome::Kind::kCrashed;
      out->error = absl::InternalError(absl::StrCat("worker died from ", name));
    }
  } else if (WIFEXITED(status)) {
    out->error = absl::InternalError(
        absl::StrCat("worker exited with status ", WEXITSTATUS(status), " before answering"));
  } else {
    out->error = absl::InternalError(absl::StrCat("worker vanished (wait status ", status, ")"));
  }
}

JobOutcome WorkerPool::Impl::Run(std::string_view request) {
  Worker* worker = Acquire();
  const absl::Time start = absl::Now();
  JobOutcome out;
  if (absl::Status started = EnsureStarted(*worker); !started.ok()) {
    out.kind = JobOutcome::Kind::kWorkerLost;
    out.error = started;
  } else {
    WorkerSlot& s = slot(*worker);
    s.Clear();
    OutputTail tail;
    Frame answer;
    Exchange how = Talk(*worker, request, absl::Now() + limits_.timeout, &tail, &answer);
    if (how == Exchange::kTimedOut) CaptureHang(*worker, &tail);
    if (how == Exchange::kAnswered) {
      DrainOutput(worker->output.get(), &tail);
      DecodeAnswer(std::move(answer), &out);
      // A one-job worker is done; one that ran out of memory may be left
      // with a damaged heap.
      if (lifetime_ == WorkerLifetime::kOneJob ||
          (out.kind != JobOutcome::Kind::kOk && out.kind != JobOutcome::Kind::kError)) {
        Retire(*worker);
      }
    } else {
      ClassifyDeath(*worker, how, &tail, &out);
    }
    out.phase = ReadPhase(s);
    out.backtrace = SymbolizeStack(s);
    out.stderr_tail = tail.Take();
  }
  out.wall = absl::Now() - start;
  Release(worker);
  return out;
}

absl::StatusOr<std::unique_ptr<WorkerPool>> WorkerPool::Create(int num_workers,
                                                               JobHandler handler,
                                                               IsolationLimits limits,
                                                               WorkerLifetime lifetime) {
  if (num_workers < 1) return absl::InvalidArgumentError("num_workers must be at least 1");
  if (!handler) return absl::InvalidArgumentError("no job handler");
  if (limits.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("timeout must be positive");
  }
  auto impl = std::make_unique<Impl>(num_workers, std::move(handler), limits, lifetime);
  if (absl::Status s = impl->Start(); !s.ok()) return s;
  return std::unique_ptr<WorkerPool>(new WorkerPool(std::move(impl)));
}

WorkerPool::WorkerPool(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WorkerPool::~WorkerPool() = default;

JobOutcome WorkerPool::Run(std::string_view request) { return impl_->Run(request); }
int WorkerPool::num_workers() const { return impl_->num_workers(); }
int WorkerPool::fork_server_pid() const { return impl_->fork_server_pid(); }

}  // namespace rk::repro
