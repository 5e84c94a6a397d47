// `reprokit backend-pool start|status|stop|serve BACKEND`: a warm pool of an
// external backend's processes that commands share (docs/BACKENDS.md, "A
// warm pool"). `start` runs `serve` as a daemon and returns once its first
// process has said hello; every later `check`, `capture`, `minify`, ... with
// `--backend BACKEND` sends its requests to the pool instead of starting
// processes of its own.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/daemon.h"
#include "base/json.h"
#include "repro/backend/backend_pool.h"
#include "repro/backend/locate.h"
#include "repro/backend/pool_client.h"
#include "repro/backend/pool_wire.h"
#include "repro/oracle/backend_runner.h"
#include "tools/exit_codes.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kCommand[] = "backend-pool";
constexpr char kReadyFdEnv[] = "REPROKIT_POOL_READY_FD";

repro::BackendLimits PoolLimits() {
  repro::BackendLimits limits;  // the oracle's default memory limit: the same pool key
  if (const char* start = std::getenv("REPROKIT_BACKEND_START_TIMEOUT"); start != nullptr) {
    double seconds = 0;
    if (absl::SimpleAtod(start, &seconds) && seconds > 0 && std::isfinite(seconds)) {
      limits.start_timeout = absl::Seconds(seconds);
    }
  }
  return limits;
}

// The daemon tells `start` how its start went through this pipe: "0" when
// ready, else a status code and the message.
void TellStarter(const std::string& message) {
  const char* fd_text = std::getenv(kReadyFdEnv);
  int fd = -1;
  if (fd_text == nullptr || !absl::SimpleAtoi(fd_text, &fd) || fd < 0) return;
  (void)!::write(fd, message.data(), message.size());
  ::close(fd);
  ::unsetenv(kReadyFdEnv);
}

int Serve(const repro::BackendCommand& command, const std::string& socket, int processes,
          double idle_seconds, const std::vector<std::string>& warm, bool ready_first) {
  // The backend processes must not inherit the pipe to `start`: it waits for its end.
  if (const char* fd_text = std::getenv(kReadyFdEnv); fd_text != nullptr) {
    int fd = -1;
    if (absl::SimpleAtoi(fd_text, &fd) && fd >= 0) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  repro::BackendPoolOptions options;
  options.command = command;
  options.limits = PoolLimits();
  options.processes = processes;
  options.idle = absl::Seconds(idle_seconds);
  options.socket_path = socket;
  options.warm_devices = warm;
  options.ready_when_first_warm = ready_first;
  options.to_onnx = repro::BackendRunner::GetOnnxExporter();
  absl::Status served = repro::ServeBackendPool(options, [&](const repro::BackendHello& hello) {
    std::fprintf(stderr, "reprokit: backend-pool: serving %s %s with %d processes at %s\n",
                 hello.name.c_str(), hello.version.c_str(), processes, socket.c_str());
    TellStarter("0");
  });
  if (!served.ok()) {
    TellStarter(absl::StrCat(static_cast<int>(served.code()), " ", served.message()));
    return ReportError(kCommand, served);
  }
  return kExitOk;
}

// Runs `serve` as a daemon (base/daemon.h; its stdio in LOG) and waits for its word.
int Start(const repro::BackendCommand& command, const std::string& socket, int processes,
          double idle_seconds, const std::vector<std::string>& warm, bool ready_first) {
  if (auto c = repro::PoolConnection::Connect(socket, absl::Seconds(1)); c.ok()) {
    std::printf("a pool of %s %s already serves at %s\n", (*c)->hello().name.c_str(),
                (*c)->hello().version.c_str(), socket.c_str());
    return kExitOk;
  }
  // Only the write end passes to the daemon.
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0 || ::fcntl(ready[1], F_SETFD, 0) != 0) {
    return ReportError(kCommand, absl::InternalError("pipe failed"));
  }
  const std::string log = socket.substr(0, socket.size() - 5) + ".log";
  std::vector<std::string> argv = {"/proc/self/exe", kCommand, "serve", command.spec,
                                   "-j", std::to_string(processes),
                                   "--idle", absl::StrCat(idle_seconds)};
  if (!warm.empty()) {
    argv.push_back("--warm");
    argv.push_back(absl::StrJoin(warm, ","));
  }
  if (ready_first) argv.insert(argv.end(), {"--ready", "first"});
  std::fprintf(stderr, "reprokit: backend-pool: starting %d processes of '%s' (log: %s)\n",
               processes, command.spec.c_str(), log.c_str());
  DaemonOptions daemon;
  daemon.log_path = log;
  daemon.env = {absl::StrCat(kReadyFdEnv, "=", ready[1])};
  absl::StatusOr<pid_t> started = StartDaemon(argv, daemon);
  ::close(ready[1]);
  if (!started.ok()) {
    ::close(ready[0]);
    return ReportError(kCommand, started.status());
  }
  std::string word;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(ready[0], buffer, sizeof(buffer))) > 0) word.append(buffer, n);
  ::close(ready[0]);
  if (word == "0") {
    std::printf("backend pool of '%s' with %d processes at %s (stops after %gs idle; "
                "`reprokit backend-pool stop %s`)\n",
                command.spec.c_str(), processes, socket.c_str(), idle_seconds,
                command.spec.c_str());
    return kExitOk;
  }
  int code = static_cast<int>(absl::StatusCode::kUnavailable);
  std::string message = word.empty() ? absl::StrCat("the pool ended before it was ready; see ", log)
                                     : word;
  if (const size_t space = word.find(' '); space != std::string::npos) {
    (void)absl::SimpleAtoi(word.substr(0, space), &code);
    message = word.substr(space + 1);
  }
  return ReportError(kCommand, absl::Status(static_cast<absl::StatusCode>(code), message));
}

int Ask(const std::string& action, const std::string& spec, const std::string& socket, bool json) {
  absl::StatusOr<std::unique_ptr<repro::PoolConnection>> c =
      repro::PoolConnection::Connect(socket, absl::Seconds(1));
  if (!c.ok()) {
    if (action == "stop") {
      std::printf("no pool of '%s' is running\n", spec.c_str());
      return kExitOk;
    }
    return ReportError(kCommand, absl::NotFoundError(absl::StrCat(
                                     "no pool of '", spec, "' is running (",
                                     c.status().message(), ")")));
  }
  absl::StatusOr<Json> answer = action == "stop" ? (*c)->Stop() : (*c)->Status();
  if (!answer.ok()) return ReportError(kCommand, answer.status());
  if (json) {
    answer->Set("socket", Json(socket));
    std::printf("%s\n", answer->DumpPretty().c_str());
    return kExitOk;
  }
  auto number = [&](const char* key) {
    const Json* v = answer->Find(key);
    return v != nullptr && v->is_number() ? static_cast<long long>(v->double_value()) : 0LL;
  };
  std::printf("%s %s %s: %lld processes (%lld idle, %lld busy, %lld started), %lld other clients, "
              "%lld requests served (%lld not a reply), pid %lld, socket %s\n",
              action == "stop" ? "stopping" : "pool of", (*c)->hello().name.c_str(),
              (*c)->hello().version.c_str(), number("processes"), number("idle"), number("busy"),
              number("started"), std::max(0LL, number("clients") - 1), number("served"),
              number("failed"),
              number("pid"), socket.c_str());
  return kExitOk;
}

int RunBackendPool(absl::Span<const std::string> args) {
  FlagSet flags(
      "backend-pool start|status|stop BACKEND [flags]",
      "A warm pool of an external backend's processes, shared by every command that\n"
      "names the same backend (docs/BACKENDS.md, \"A warm pool\"): `start` starts it\n"
      "in the background and returns when it is ready, so `check`, `capture`,\n"
      "`minify -j N`, `fuzz` ... no longer wait for the backend to start (a Python\n"
      "backend's `import torch`). The pool keeps each process's isolation (process\n"
      "group, memory limit, per-request timeout, restart after a crash), runs with the\n"
      "environment it was started in, and stops after --idle seconds without a client.\n"
      "REPROKIT_BACKEND_POOL=off makes commands ignore it.");
  int64_t processes = 4;
  double idle = 1800;
  bool json = false;
  std::string warm_text;
  flags.Int("jobs", &processes, "processes in the pool (requests beyond wait)", 'j');
  flags.String("warm", &warm_text,
               "start: devices (cpu, cuda; comma-separated) each process first compiles and "
               "runs a small graph on, so that the commands using the pool do not pay a "
               "device's first-use costs; `start` then returns once every process is warm");
  std::string ready = "all";
  flags.String("ready", &ready,
               "start: with --warm, return once `all` processes are warm (default) or the "
               "`first` is (the others start and warm up while the pool serves)");
  flags.Double("idle", &idle, "seconds without a client before the pool stops");
  flags.Bool("json", &json, "status and stop: print the pool's counters as JSON");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return ReportError(kCommand, positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (positional->size() != 2) {
    return ReportError(kCommand, absl::InvalidArgumentError(
                                     "expected an action (start, status, stop) and a BACKEND"));
  }
  const std::string& action = (*positional)[0];
  const std::string& spec = (*positional)[1];
  if (action != "start" && action != "status" && action != "stop" && action != "serve") {
    return ReportError(kCommand, absl::InvalidArgumentError(absl::StrCat(
                                     "unknown action '", action, "' (start, status, stop)")));
  }
  if (processes < 1 || processes > 256) {
    return ReportError(kCommand,
                       absl::InvalidArgumentError("-j: expected 1 to 256 processes"));
  }
  if (!std::isfinite(idle) || idle <= 0) {
    return ReportError(kCommand,
                       absl::InvalidArgumentError("--idle: expected a finite number of seconds > 0"));
  }
  if (ready != "all" && ready != "first") {
    return ReportError(kCommand, absl::InvalidArgumentError(absl::StrCat(
                                     "--ready: expected all or first, got '", ready, "'")));
  }
  const bool ready_first = ready == "first";
  std::vector<std::string> warm;
  for (absl::string_view device : absl::StrSplit(warm_text, ',', absl::SkipEmpty())) {
    if (device != "cpu" && device != "cuda") {
      return ReportError(kCommand, absl::InvalidArgumentError(absl::StrCat(
                                       "--warm: unknown device '", device, "' (cpu, cuda)")));
    }
    warm.emplace_back(device);
  }
  absl::StatusOr<repro::BackendCommand> command = repro::LocateBackend(spec);
  if (!command.ok()) return ReportError(kCommand, command.status());
  absl::StatusOr<std::string> socket = repro::BackendPoolSocket(
      *command, PoolLimits().memory_bytes, /*make_folder=*/action == "start" || action == "serve");
  if (!socket.ok()) {
    if (absl::IsNotFound(socket.status()) && action != "start") {
      return Ask(action, spec, "", json);
    }
    return ReportError(kCommand, socket.status());
  }
  if (action == "serve") {
    return Serve(*command, *socket, static_cast<int>(processes), idle, warm, ready_first);
  }
  if (action == "start") {
    return Start(*command, *socket, static_cast<int>(processes), idle, warm, ready_first);
  }
  return Ask(action, spec, *socket, json);
}

}  // namespace

REPROKIT_SUBCOMMAND("backend-pool", "keep an external backend's processes warm for all commands",
                    &RunBackendPool);

}  // namespace rk::tools
