#include "repro/backend/backend_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace rk::repro {
namespace {

constexpr size_t kStderrTailBytes = 4096;
constexpr uint64_t kMaxHelloPayload = 1 << 20;

void IgnoreSigpipeOnce() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

int MillisUntil(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 60'000));
}

std::string TailNote(const std::string& tail) {
  if (tail.empty()) return "";
  std::string t = tail;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  const size_t cut = t.size() > 600 ? t.size() - 600 : 0;
  return absl::StrCat("; its stderr ends: ", cut > 0 ? "..." : "", t.substr(cut));
}

}  // namespace

absl::StatusOr<std::unique_ptr<BackendProcess>> BackendProcess::Start(
    const BackendCommand& command, const BackendLimits& limits) {
  IgnoreSigpipeOnce();
  std::unique_ptr<BackendProcess> p(new BackendProcess(command, limits));
  ChildProcessOptions options;
  options.data_limit_bytes = limits.memory_bytes;
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(command.argv, options);
  if (!child.ok()) {
    return absl::Status(child.status().code(), absl::StrCat("backend '", command.spec, "': ",
                                                            child.status().message()));
  }
  p->child_ = *std::move(child);
  Frame frame;
  std::string what;
  const absl::Time deadline = absl::Now() + limits.start_timeout;
  const Pump pump = p->PumpUntilFrame("", deadline, kMaxHelloPayload, &frame, &what);
  auto fail = [&](absl::StatusCode code, const std::string& why) {
    p->KillNow();
    return absl::Status(code, absl::StrCat("backend '", command.spec, "' ", why,
                                           TailNote(p->stderr_tail_)));
  };
  switch (pump) {
    case Pump::kTimedOut:
      return fail(absl::StatusCode::kUnavailable,
                  absl::StrCat("sent no hello within ", absl::FormatDuration(limits.start_timeout)));
    case Pump::kClosed: {
      const int status = p->Reap();
      return fail(absl::StatusCode::kUnavailable,
                  absl::StrCat("ended before its hello (", ChildProcess::DescribeStatus(status),
                               ")"));
    }
    case Pump::kBad:
      return fail(absl::StatusCode::kUnavailable, absl::StrCat("does not speak the protocol: ", what));
    case Pump::kFrame:
      break;
  }
  absl::StatusOr<BackendHello> hello = HelloFromJson(frame.header);
  if (!hello.ok()) {
    const absl::StatusCode code = hello.status().code() == absl::StatusCode::kFailedPrecondition
                                      ? absl::StatusCode::kFailedPrecondition
                                      : absl::StatusCode::kUnavailable;
    return fail(code, absl::StrCat("sent a bad hello: ", hello.status().message()));
  }
  p->hello_ = *std::move(hello);
  return p;
}

BackendProcess::~BackendProcess() {
  if (child_ == nullptr) return;
  const std::string bye = EncodeShutdown();
  (void)!::write(child_->stdin_fd(), bye.data(), bye.size());
  child_->CloseStdin();
  child_->WaitOrKill(1.0);
  child_.reset();
}

void BackendProcess::KillNow() {
  if (child_ == nullptr) return;
  child_->Kill();
  ReadStderr();
  child_.reset();
}

void BackendProcess::ReadStderr() {
  if (child_ == nullptr) return;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(child_->stderr_fd(), buffer, sizeof(buffer));
    if (n <= 0) break;
    stderr_tail_.append(buffer, n);
    if (stderr_tail_.size() > kStderrTailBytes) {
      stderr_tail_.erase(0, stderr_tail_.size() - kStderrTailBytes);
    }
  }
}

int BackendProcess::Reap() {
  const int status = child_->WaitOrKill(1.0);
  ReadStderr();
  child_.reset();
  return status;
}

BackendProcess::Pump BackendProcess::PumpUntilFrame(std::string_view to_write, absl::Time deadline,
                                                    uint64_t max_payload, Frame* frame,
                                                    std::string* what) {
  size_t written = 0;
  bool stdin_open = true;
  while (true) {
    absl::StatusOr<std::optional<Frame>> taken = TakeFrame(out_buffer_, max_payload);
    if (!taken.ok()) {
      *what = std::string(taken.status().message());
      return Pump::kBad;
    }
    if (taken->has_value()) {
      if (written < to_write.size()) {
        *what = "replied before it read the whole request";
        return Pump::kBad;
      }
      *frame = **std::move(taken);
      return Pump::kFrame;
    }
    const int wait_ms = MillisUntil(deadline);
    if (wait_ms == 0) return Pump::kTimedOut;
    pollfd fds[3] = {{child_->stdout_fd(), POLLIN, 0},
                     {child_->stderr_fd(), POLLIN, 0},
                     {child_->stdin_fd(), 0, 0}};
    const bool writing = stdin_open && written < to_write.size();
    if (writing) fds[2].events = POLLOUT;
    const int n = ::poll(fds, writing ? 3 : 2, wait_ms);
    if (n < 0 && errno != EINTR) {
      *what = absl::StrCat("poll: ", std::strerror(errno));
      return Pump::kBad;
    }
    if (n <= 0) continue;
    if (fds[1].revents & (POLLIN | POLLHUP)) ReadStderr();
    if (writing && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t w = ::write(child_->stdin_fd(), to_write.data() + written,
                                std::min<size_t>(to_write.size() - written, 1 << 20));
      if (w > 0) {
        written += w;
      } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
        stdin_open = false;  // EPIPE: it stopped reading; what it says next decides
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char buffer[1 << 16];
      const ssize_t r = ::read(child_->stdout_fd(), buffer, sizeof(buffer));
      if (r > 0) {
        // Bounded: a frame's prefix says how much may follow.
        if (out_buffer_.size() + r > kFramePrefixBytes + kMaxFrameHeaderBytes + max_payload) {
          *what = "wrote more than one message may hold";
          return Pump::kBad;
        }
        out_buffer_.append(buffer, r);
      } else if (r == 0) {
        // Whatever is buffered may still hold a whole frame.
        absl::StatusOr<std::optional<Frame>> last = TakeFrame(out_buffer_, max_payload);
        if (last.ok() && last->has_value() && written == to_write.size()) {
          *frame = **std::move(last);
          return Pump::kFrame;
        }
        return Pump::kClosed;
      } else if (errno != EAGAIN && errno != EINTR) {
        return Pump::kClosed;
      }
    }
  }
}

BackendOutcome BackendProcess::Run(const std::string& request, int64_t request_id,
                                   absl::Span<const compiler::TensorType> outputs, int runs,
                                   absl::Duration timeout) {
  BackendOutcome outcome;
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + timeout;
  stderr_tail_.clear();
  out_buffer_.clear();
  uint64_t max_payload = 1 << 20;
  for (const compiler::TensorType& t : outputs) max_payload += t.byte_size() * runs;
  auto finish = [&](BackendOutcome::Kind kind) {
    outcome.kind = kind;
    outcome.stderr_tail = stderr_tail_;
    outcome.seconds = absl::ToDoubleSeconds(absl::Now() - start);
    return outcome;
  };
  if (child_ == nullptr) {
    outcome.what = "the backend is not running";
    return finish(BackendOutcome::Kind::kExited);
  }
  std::string_view to_write = request;
  while (true) {
    Frame frame;
    std::string what;
    const Pump pump = PumpUntilFrame(to_write, deadline, max_payload, &frame, &what);
    to_write = {};
    switch (pump) {
      case Pump::kTimedOut:
        KillNow();
        return finish(BackendOutcome::Kind::kTimedOut);
      case Pump::kClosed: {
        const int status = Reap();
        if (WIFSIGNALED(status)) {
          outcome.signal = WTERMSIG(status);
          return finish(BackendOutcome::Kind::kCrashed);
        }
        outcome.what = absl::StrCat("ended during the request (",
                                    ChildProcess::DescribeStatus(status), ")");
        return finish(BackendOutcome::Kind::kExited);
      }
      case Pump::kBad:
        KillNow();
        outcome.what = what;
        return finish(BackendOutcome::Kind::kProtocolError);
      case Pump::kFrame:
        break;
    }
    if (frame.type() == "phase") {
      const Json* name = frame.header.Find("name");
      if (name != nullptr && name->is_string()) outcome.phase = name->string_value();
      continue;
    }
    absl::StatusOr<RunReply> reply = DecodeRunReply(frame, outputs, runs);
    if (!reply.ok()) {
      KillNow();
      outcome.what = std::string(reply.status().message());
      return finish(BackendOutcome::Kind::kProtocolError);
    }
    if (reply->id != request_id) {
      KillNow();
      outcome.what = absl::StrCat("replied to request ", reply->id, " while ", request_id,
                                  " was pending");
      return finish(BackendOutcome::Kind::kProtocolError);
    }
    outcome.reply = *std::move(reply);
    return finish(BackendOutcome::Kind::kReply);
  }
}

}  // namespace rk::repro
