#include "repro/backend/pool_wire.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/sha256.h"
#include "base/status_macros.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::Shape;
using compiler::TensorType;

absl::Status PrivateFolder(const std::string& dir, bool make) {
  if (!make && ::access(dir.c_str(), F_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("no backend pool folder '", dir, "'"));
  }
  if (make && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::UnavailableError(
        absl::StrCat("cannot make the backend pool folder '", dir, "': ", std::strerror(errno)));
  }
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::UnavailableError(absl::StrCat("'", dir, "' is not a folder"));
  }
  if (st.st_uid != ::getuid() || (st.st_mode & 0022) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the backend pool folder '", dir,
        "' belongs to another user or others may write to it; refusing to use it"));
  }
  return absl::OkStatus();
}

Json TypeJson(const TensorType& type) {
  Json j = Json::MakeObject();
  j["dtype"] = std::string(compiler::DTypeName(type.dtype));
  Json shape = Json::MakeArray();
  for (int64_t d : type.shape.dims()) shape.push_back(static_cast<long long>(d));
  j["shape"] = std::move(shape);
  return j;
}

absl::StatusOr<TensorType> TypeFromJson(const JsonRef& ref) {
  RK_ASSIGN_OR_RETURN(JsonRef dtype_ref, ref.Field("dtype"));
  RK_ASSIGN_OR_RETURN(std::string dtype_name, dtype_ref.String());
  std::optional<DType> dtype = compiler::ParseDType(dtype_name);
  if (!dtype) return dtype_ref.Error(absl::StrCat("unknown dtype '", dtype_name, "'"));
  RK_ASSIGN_OR_RETURN(JsonRef shape_ref, ref.Field("shape"));
  RK_ASSIGN_OR_RETURN(std::vector<JsonRef> dims, shape_ref.Elements());
  if (dims.size() > 16) return shape_ref.Error("more than 16 dimensions");
  std::vector<int64_t> shape;
  for (const JsonRef& d : dims) {
    RK_ASSIGN_OR_RETURN(int64_t n, d.Int());
    if (n < 0) return d.Error("a negative dimension");
    shape.push_back(n);
  }
  return TensorType(*dtype, Shape(std::move(shape)));
}

constexpr std::pair<BackendOutcome::Kind, const char*> kKinds[] = {
    {BackendOutcome::Kind::kReply, "reply"},
    {BackendOutcome::Kind::kTimedOut, "timed_out"},
    {BackendOutcome::Kind::kCrashed, "crashed"},
    {BackendOutcome::Kind::kExited, "exited"},
    {BackendOutcome::Kind::kProtocolError, "protocol_error"},
};

}  // namespace

absl::StatusOr<std::string> BackendPoolSocket(const BackendCommand& command,
                                              int64_t memory_bytes, bool make_folder) {
  std::string dir;
  if (const char* env = std::getenv("REPROKIT_BACKEND_POOL_DIR"); env != nullptr && *env) {
    dir = env;
  } else if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run != nullptr && *run) {
    dir = absl::StrCat(run, "/reprokit");
  } else {
    dir = absl::StrCat("/tmp/reprokit-", ::getuid());
  }
  RK_RETURN_IF_ERROR(PrivateFolder(dir, make_folder));
  const std::string key = absl::StrCat(absl::StrJoin(command.argv, std::string(1, '\0')),
                                       std::string(1, '\0'), memory_bytes);
  const std::string path = absl::StrCat(dir, "/pool-", Sha256Hex(key).substr(0, 16), ".sock");
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the backend pool socket path '", path, "' is too long for a Unix socket; "
                     "set REPROKIT_BACKEND_POOL_DIR to a shorter folder"));
  }
  return path;
}

std::string EncodePoolRun(const PoolRun& run) {
  Json h = Json::MakeObject();
  h["type"] = "pool_run";
  h["id"] = static_cast<long long>(run.id);
  h["runs"] = run.runs;
  h["timeout_ms"] = static_cast<long long>(absl::ToInt64Milliseconds(run.timeout));
  Json outputs = Json::MakeArray();
  for (const TensorType& t : run.outputs) outputs.push_back(TypeJson(t));
  h["outputs"] = std::move(outputs);
  return EncodeFrame(h, run.frame);
}

absl::StatusOr<PoolRun> DecodePoolRun(const Frame& frame) {
  JsonRef ref(frame.header, "pool_run");
  PoolRun run;
  RK_ASSIGN_OR_RETURN(JsonRef id, ref.Field("id"));
  RK_ASSIGN_OR_RETURN(run.id, id.Int());
  RK_ASSIGN_OR_RETURN(JsonRef runs, ref.Field("runs"));
  RK_ASSIGN_OR_RETURN(int64_t n, runs.Int());
  if (n < 1 || n > 16) return runs.Error("runs must be 1 to 16");
  run.runs = static_cast<int>(n);
  RK_ASSIGN_OR_RETURN(JsonRef timeout, ref.Field("timeout_ms"));
  RK_ASSIGN_OR_RETURN(int64_t ms, timeout.Int());
  if (ms <= 0) return timeout.Error("the timeout must be positive");
  run.timeout = absl::Milliseconds(ms);
  RK_ASSIGN_OR_RETURN(JsonRef outputs, ref.Field("outputs"));
  RK_ASSIGN_OR_RETURN(std::vector<JsonRef> types, outputs.Elements());
  for (const JsonRef& t : types) {
    RK_ASSIGN_OR_RETURN(TensorType type, TypeFromJson(t));
    run.outputs.push_back(std::move(type));
  }
  run.frame = frame.payload;
  return run;
}

std::string EncodePoolOutcome(const BackendOutcome& outcome) {
  Json h = Json::MakeObject();
  h["type"] = "pool_outcome";
  for (const auto& [kind, name] : kKinds) {
    if (kind == outcome.kind) h["kind"] = name;
  }
  h["signal"] = outcome.signal;
  h["phase"] = outcome.phase;
  h["stderr_tail"] = outcome.stderr_tail;
  h["what"] = outcome.what;
  h["seconds"] = outcome.seconds;
  return EncodeFrame(h, outcome.kind == BackendOutcome::Kind::kReply
                            ? EncodeRunReply(outcome.reply)
                            : std::string());
}

absl::StatusOr<BackendOutcome> DecodePoolOutcome(const Frame& frame,
                                                 absl::Span<const TensorType> outputs, int runs) {
  if (frame.type() != "pool_outcome") {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a pool_outcome, got '", frame.type(), "'"));
  }
  JsonRef ref(frame.header, "pool_outcome");
  BackendOutcome outcome;
  RK_ASSIGN_OR_RETURN(JsonRef kind_ref, ref.Field("kind"));
  RK_ASSIGN_OR_RETURN(std::string kind, kind_ref.String());
  bool known = false;
  for (const auto& [k, name] : kKinds) {
    if (kind == name) {
      outcome.kind = k;
      known = true;
    }
  }
  if (!known) return kind_ref.Error(absl::StrCat("unknown outcome '", kind, "'"));
  RK_ASSIGN_OR_RETURN(JsonRef signal, ref.Field("signal"));
  RK_ASSIGN_OR_RETURN(int64_t sig, signal.Int());
  outcome.signal = static_cast<int>(sig);
  RK_ASSIGN_OR_RETURN(JsonRef phase, ref.Field("phase"));
  RK_ASSIGN_OR_RETURN(outcome.phase, phase.String());
  RK_ASSIGN_OR_RETURN(JsonRef tail, ref.Field("stderr_tail"));
  RK_ASSIGN_OR_RETURN(outcome.stderr_tail, tail.String());
  RK_ASSIGN_OR_RETURN(JsonRef what, ref.Field("what"));
  RK_ASSIGN_OR_RETURN(outcome.what, what.String());
  RK_ASSIGN_OR_RETURN(JsonRef seconds, ref.Field("seconds"));
  RK_ASSIGN_OR_RETURN(outcome.seconds, seconds.Double());
  if (outcome.kind == BackendOutcome::Kind::kReply) {
    std::string buffer = frame.payload;
    uint64_t max_payload = 1 << 20;
    for (const TensorType& t : outputs) max_payload += t.byte_size() * runs;
    RK_ASSIGN_OR_RETURN(std::optional<Frame> inner, TakeFrame(buffer, max_payload));
    if (!inner.has_value() || !buffer.empty()) {
      return absl::InvalidArgumentError("a pool_outcome's payload is not one reply frame");
    }
    RK_ASSIGN_OR_RETURN(outcome.reply, DecodeRunReply(*inner, outputs, runs));
  }
  return outcome;
}

absl::StatusOr<int> ConnectUnixSocket(const std::string& path) {
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path too long: ", path));
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    const int error = errno;
    ::close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot connect to '", path, "': ", std::strerror(error)));
  }
  return fd;
}

absl::Status WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::AbortedError(absl::StrCat("write: ", std::strerror(errno)));
    }
    bytes.remove_prefix(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<Frame> ReadFrame(int fd, std::string& buffer, absl::Time deadline,
                                uint64_t max_payload) {
  while (true) {
    absl::StatusOr<std::optional<Frame>> taken = TakeFrame(buffer, max_payload);
    if (!taken.ok()) return taken.status();
    if (taken->has_value()) return **std::move(taken);
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("no reply in time");
    pollfd p = {fd, POLLIN, 0};
    const int wait_ms =
        static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 60'000));
    const int n = ::poll(&p, 1, wait_ms);
    if (n < 0 && errno != EINTR) return absl::AbortedError(absl::StrCat("poll: ", std::strerror(errno)));
    if (n <= 0) continue;
    char chunk[1 << 16];
    const ssize_t r = ::read(fd, chunk, sizeof(chunk));
    if (r == 0) return absl::AbortedError("the peer closed the connection");
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return absl::AbortedError(absl::StrCat("read: ", std::strerror(errno)));
    }
    if (buffer.size() + r > kFramePrefixBytes + kMaxFrameHeaderBytes + max_payload) {
      return absl::InvalidArgumentError("the peer sent more than one message may hold");
    }
    buffer.append(chunk, r);
  }
}

}  // namespace rk::repro
