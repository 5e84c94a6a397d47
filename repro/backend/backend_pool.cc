#include "repro/backend/backend_pool.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "repro/backend/channel_pool.h"
#include "repro/backend/pool_wire.h"
#include "repro/backend/warm_up.h"

namespace rk::repro {
namespace {

constexpr uint64_t kMaxRequestPayload = uint64_t{4} << 30;

std::atomic<bool> stop_requested{false};

void OnStopSignal(int) { stop_requested.store(true); }

struct Shared {
  const BackendPoolOptions* options;
  const BackendHello* hello;
  ChannelPool* pool;
  std::atomic<int> clients{0};
  std::atomic<int64_t> served{0};
  std::atomic<int64_t> failed{0};  // outcomes other than a reply
  std::mutex mutex;
  absl::Time last_activity = absl::Now();
  void Touch() {
    std::lock_guard<std::mutex> lock(mutex);
    last_activity = absl::Now();
  }
};

Json StatusJson(const Shared& shared) {
  const ChannelPool::Counts counts = shared.pool->counts();
  Json j = Json::MakeObject();
  j["type"] = "pool_status";
  j["backend"] = shared.hello->name;
  j["version"] = shared.hello->version;
  j["processes"] = shared.options->processes;
  j["idle"] = counts.idle;
  j["busy"] = counts.busy;
  j["started"] = counts.opened;
  j["clients"] = shared.clients.load();
  j["served"] = static_cast<long long>(shared.served.load());
  j["failed"] = static_cast<long long>(shared.failed.load());
  j["pid"] = static_cast<long long>(::getpid());
  return j;
}

// One client: requests one at a time, each on a process of the pool.
void ServeClient(int fd, Shared* shared) {
  std::string buffer;
  while (!stop_requested.load()) {
    absl::StatusOr<Frame> frame =
        ReadFrame(fd, buffer, absl::Now() + absl::Milliseconds(250), kMaxRequestPayload);
    if (absl::IsDeadlineExceeded(frame.status())) continue;  // look at the stop flag again
    if (!frame.ok()) break;  // closed, or not the protocol: drop the client
    shared->Touch();
    const std::string& type = frame->type();
    std::string reply;
    if (type == "pool_hello") {
      Json h = HelloToJson(*shared->hello);
      h["pool"] = StatusJson(*shared);
      reply = EncodeFrame(h, "");
    } else if (type == "pool_status") {
      reply = EncodeFrame(StatusJson(*shared), "");
    } else if (type == "pool_stop") {
      stop_requested.store(true);
      reply = EncodeFrame(StatusJson(*shared), "");
    } else if (type == "pool_run") {
      absl::StatusOr<PoolRun> run = DecodePoolRun(*frame);
      if (!run.ok()) break;
      BackendOutcome outcome;
      absl::StatusOr<std::unique_ptr<BackendChannel>> channel = shared->pool->Acquire();
      if (!channel.ok()) {
        outcome.kind = BackendOutcome::Kind::kExited;
        outcome.what = absl::StrCat("could not be restarted: ", channel.status().message());
      } else {
        outcome = (*channel)->Run(run->frame, run->id, run->outputs, run->runs, run->timeout);
        shared->pool->Release(*std::move(channel));
      }
      ++shared->served;
      if (outcome.kind != BackendOutcome::Kind::kReply) ++shared->failed;
      reply = EncodePoolOutcome(outcome);
    } else {
      break;
    }
    if (!WriteAll(fd, reply).ok()) break;
    shared->Touch();
  }
  ::close(fd);
}

absl::StatusOr<int> Listen(const std::string& path) {
  if (absl::StatusOr<int> other = ConnectUnixSocket(path); other.ok()) {
    ::close(*other);
    return absl::AlreadyExistsError(absl::StrCat("a backend pool already serves at '", path, "'"));
  }
  ::unlink(path.c_str());  // a stale socket of a pool that died
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), std::min(path.size() + 1, sizeof(address.sun_path)));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(fd, 64) != 0) {
    const int error = errno;
    ::close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot listen on '", path, "': ", std::strerror(error)));
  }
  return fd;
}

// A backend process, started and warmed up on options.warm_devices. A warm-up
// that fails is logged and the process kept, unless it died.
absl::StatusOr<std::unique_ptr<BackendProcess>> StartWarm(const BackendPoolOptions& options) {
  absl::StatusOr<std::unique_ptr<BackendProcess>> p =
      BackendProcess::Start(options.command, options.limits);
  if (!p.ok()) return p.status();
  for (const std::string& device : options.warm_devices) {
    absl::Status warm = WarmUp(**p, device, options.limits.timeout, options.to_onnx);
    if (warm.ok()) continue;
    std::fprintf(stderr, "reprokit: backend-pool: %s\n", std::string(warm.message()).c_str());
    if (!(*p)->alive()) return warm;
  }
  return p;
}

}  // namespace

absl::Status ServeBackendPool(const BackendPoolOptions& options,
                              const std::function<void(const BackendHello&)>& ready) {
  stop_requested.store(false);
  ChannelPool pool(
      [&options]() -> absl::StatusOr<std::unique_ptr<BackendChannel>> {
        absl::StatusOr<std::unique_ptr<BackendProcess>> p = StartWarm(options);
        if (!p.ok()) return p.status();
        return std::unique_ptr<BackendChannel>(*std::move(p));
      },
      options.processes);
  // Every process starts at once (a Python backend's import and warm-up side
  // by side, not the first's before the others'); the first to be ready gives
  // the hello. When a start fails, Acquire starts one more in its slot and
  // returns that one's error: a backend that cannot start is reported.
  pool.Prestart();
  absl::StatusOr<std::unique_ptr<BackendChannel>> first = pool.Acquire();
  if (!first.ok()) return first.status();
  const BackendHello hello = (*first)->hello();
  pool.Release(*std::move(first));
  pool.Prestart();
  if (!options.warm_devices.empty() && !options.ready_when_first_warm) {
    // Ready means warm: every slot opened and warmed up (or given up on).
    const absl::Time deadline =
        absl::Now() + options.limits.start_timeout + options.limits.timeout;
    while (pool.counts().opening > 0 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(50));
    }
  }
  absl::StatusOr<int> listener = Listen(options.socket_path);
  if (!listener.ok()) return listener.status();

  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);

  Shared shared;
  shared.options = &options;
  shared.hello = &hello;
  shared.pool = &pool;
  if (ready) ready(hello);

  while (!stop_requested.load()) {
    pollfd p = {*listener, POLLIN, 0};
    const int n = ::poll(&p, 1, 200);
    if (n > 0 && (p.revents & POLLIN)) {
      const int client = ::accept4(*listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (client >= 0) {
        ++shared.clients;
        shared.Touch();
        std::thread([client, &shared] {
          ServeClient(client, &shared);
          shared.Touch();
          --shared.clients;
        }).detach();
      }
    }
    if (shared.clients.load() == 0) {
      std::lock_guard<std::mutex> lock(shared.mutex);
      if (absl::Now() - shared.last_activity > options.idle) break;
    }
  }
  stop_requested.store(true);
  ::close(*listener);
  ::unlink(options.socket_path.c_str());
  // Clients blocked in a read notice the stop within their poll interval;
  // a client in a request finishes it (bounded by its timeout).
  while (shared.clients.load() > 0) absl::SleepFor(absl::Milliseconds(20));
  return absl::OkStatus();
}

}  // namespace rk::repro
