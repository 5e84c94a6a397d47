#include "repro/isolate/worker_main.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>

#include "repro/isolate/fd_io.h"

namespace rk::repro::isolate_internal {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
// Room for the handlers below, which run on it after a stack overflow.
constexpr size_t kAltStackSize = 256 * 1024;

uint64_t InterruptedPc(void* ucontext) {
  if (ucontext == nullptr) return 0;
#if defined(__x86_64__)
  return static_cast<uint64_t>(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<ucontext_t*>(ucontext)->uc_mcontext.pc;
#else
  return 0;
#endif
}

// Async-signal-safe once PrepareWorkerImage() has run (backtrace()'s first
// call loads the unwinder).
void RecordStack(WorkerSlot* slot, StackKind kind, void* ucontext) {
  int n = ::backtrace(slot->frames, kMaxStackFrames);
  slot->interrupted_pc.store(InterruptedPc(ucontext), std::memory_order_relaxed);
  slot->num_frames.store(n < 0 ? 0 : static_cast<uint32_t>(n), std::memory_order_relaxed);
  slot->stack_kind.store(static_cast<uint32_t>(kind), std::memory_order_release);
}

void OnFatalSignal(int sig, siginfo_t*, void* ucontext) {
  WorkerSlot* slot = current_worker_slot;
  int32_t none = 0;
  // Only the first crashing thread records its stack.
  if (slot != nullptr && slot->fatal_signal.compare_exchange_strong(none, sig)) {
    RecordStack(slot, StackKind::kCrash, ucontext);
  }
  // SA_RESETHAND restored the default action. A fault re-executes and dies;
  // a sent signal stays pending until we return, then kills the worker with
  // the true signal in its wait status.
  ::raise(sig);
}

void OnHangDump(int, siginfo_t*, void* ucontext) {
  WorkerSlot* slot = current_worker_slot;
  if (slot != nullptr &&
      slot->stack_kind.load(std::memory_order_acquire) ==
          static_cast<uint32_t>(StackKind::kNone)) {
    RecordStack(slot, StackKind::kHang, ucontext);
  }
}

void OnAllocationFailure() {
  if (current_worker_slot != nullptr) {
    current_worker_slot->allocation_failed.store(1, std::memory_order_relaxed);
  }
  throw std::bad_alloc();
}

void InstallHandlers() {
  stack_t alt{};
  alt.ss_size = kAltStackSize;
  alt.ss_sp = ::mmap(nullptr, kAltStackSize, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (alt.ss_sp != MAP_FAILED) ::sigaltstack(&alt, nullptr);

  struct sigaction fatal{};
  fatal.sa_sigaction = OnFatalSignal;
  fatal.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&fatal.sa_mask);
  for (int sig : kFatalSignals) ::sigaction(sig, &fatal, nullptr);

  struct sigaction hang{};
  hang.sa_sigaction = OnHangDump;
  hang.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&hang.sa_mask);
  ::sigaction(kHangDumpSignal, &hang, nullptr);

  std::set_new_handler(OnAllocationFailure);
}

// Bytes of address space mapped now (first field of /proc/self/statm).
uint64_t MappedBytes() {
  int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[64] = {};
  ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  return std::strtoull(buf, nullptr, 10) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

void ApplyLimits(const IsolationLimits& limits) {
  if (!limits.core_dumps) {
    rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
  }
}

// The soft RLIMIT_AS for the next job: what is mapped now + memory_bytes. The
// hard limit stays, so a job may lift the soft one (job_limits.h).
void ApplyAddressSpaceLimit(const IsolationLimits& limits) {
#if !defined(__SANITIZE_ADDRESS__)
  if (limits.memory_bytes > 0) {
    rlimit current{};
    ::getrlimit(RLIMIT_AS, &current);
    rlim_t wanted = MappedBytes() + static_cast<rlim_t>(limits.memory_bytes);
    if (current.rlim_max != RLIM_INFINITY && current.rlim_max < wanted) {
      wanted = current.rlim_max;
    }
    rlimit limit{wanted, current.rlim_max};
    ::setrlimit(RLIMIT_AS, &limit);
  }
#else
  (void)limits;
#endif
}

// Everything the job prints goes to the pool (the last 4 KiB are kept), never
// to the tool's own stdout; stdin reads as empty.
void CaptureStdio(int output_fd) {
  ::dup2(output_fd, STDOUT_FILENO);
  ::dup2(output_fd, STDERR_FILENO);
  ::close(output_fd);
  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) {
    ::dup2(null_fd, STDIN_FILENO);
    if (null_fd != STDIN_FILENO) ::close(null_fd);
  }
  // Line buffering: what was printed before a crash is not lost in a buffer.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
}

std::string EncodeError(const absl::Status& status) {
  std::string out(4, '\0');
  uint32_t code = static_cast<uint32_t>(status.code());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(code >> (8 * i));
  out.append(std::string(status.message()));
  return out;
}

}  // namespace

void PrepareWorkerImage() {
  void* prime[1];
  ::backtrace(prime, 1);
}

void RunWorker(const WorkerConfig& config, int job_fd, int output_fd) {
  current_worker_slot = config.slot;
  CaptureStdio(output_fd);
  InstallHandlers();
  ApplyLimits(config.limits);
  while (true) {
    absl::StatusOr<std::optional<Frame>> request = ReadFrame(job_fd);
    if (!request.ok() || !request->has_value() || (*request)->tag != kRequest) ::_exit(0);
    ApplyAddressSpaceLimit(config.limits);
    uint32_t tag;
    std::string payload;
    try {
      absl::StatusOr<std::string> result = (*config.handler)((*request)->payload);
      if (result.ok()) {
        tag = kResponseOk;
        payload = *std::move(result);
      } else {
        tag = kResponseError;
        payload = EncodeError(result.status());
      }
    } catch (const std::bad_alloc&) {
      tag = kResponseOutOfMemory;
      payload.clear();
    }
    request->reset();
    std::fflush(nullptr);
    if (!WriteFrame(job_fd, tag, payload).ok() || config.one_job) ::_exit(0);
  }
}

}  // namespace rk::repro::isolate_internal
