#include "repro/backend/pool_client.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "repro/backend/pool_wire.h"

namespace rk::repro {
namespace {

constexpr absl::Duration kAnswerTimeout = absl::Seconds(10);
constexpr uint64_t kMaxControlPayload = 1 << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<PoolConnection>> PoolConnection::Connect(
    const std::string& socket_path, absl::Duration start_allowance) {
  absl::StatusOr<int> fd = ConnectUnixSocket(socket_path);
  if (!fd.ok()) return fd.status();
  std::unique_ptr<PoolConnection> c(new PoolConnection(*fd, start_allowance));
  absl::StatusOr<Json> hello = c->Ask("pool_hello");
  if (!hello.ok()) {
    return absl::UnavailableError(absl::StrCat("the backend pool at '", socket_path,
                                               "' did not greet: ", hello.status().message()));
  }
  absl::StatusOr<BackendHello> parsed = HelloFromJson(*hello);
  if (!parsed.ok()) return parsed.status();
  c->hello_ = *std::move(parsed);
  return c;
}

PoolConnection::~PoolConnection() { Close(); }

void PoolConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

absl::StatusOr<Json> PoolConnection::Ask(const std::string& type) {
  if (fd_ < 0) return absl::UnavailableError("the connection to the backend pool is closed");
  Json h = Json::MakeObject();
  h["type"] = type;
  if (absl::Status s = WriteAll(fd_, EncodeFrame(h, "")); !s.ok()) {
    Close();
    return absl::UnavailableError(s.message());
  }
  absl::StatusOr<Frame> frame =
      ReadFrame(fd_, buffer_, absl::Now() + kAnswerTimeout, kMaxControlPayload);
  if (!frame.ok()) {
    Close();
    return absl::UnavailableError(frame.status().message());
  }
  return frame->header;
}

absl::StatusOr<Json> PoolConnection::Status() { return Ask("pool_status"); }
absl::StatusOr<Json> PoolConnection::Stop() { return Ask("pool_stop"); }

BackendOutcome PoolConnection::Run(const std::string& frame, int64_t request_id,
                                   absl::Span<const compiler::TensorType> outputs, int runs,
                                   absl::Duration timeout) {
  BackendOutcome outcome;
  const absl::Time start = absl::Now();
  auto lost = [&](BackendOutcome::Kind kind, std::string what) {
    Close();
    outcome.kind = kind;
    outcome.what = std::move(what);
    outcome.seconds = absl::ToDoubleSeconds(absl::Now() - start);
    return outcome;
  };
  if (fd_ < 0) return lost(BackendOutcome::Kind::kExited, "the backend pool connection is closed");
  PoolRun run;
  run.id = request_id;
  run.runs = runs;
  run.timeout = timeout;
  run.outputs.assign(outputs.begin(), outputs.end());
  run.frame = frame;
  if (absl::Status s = WriteAll(fd_, EncodePoolRun(run)); !s.ok()) {
    return lost(BackendOutcome::Kind::kExited,
                absl::StrCat("the backend pool went away: ", s.message()));
  }
  uint64_t max_payload = 2 << 20;
  for (const compiler::TensorType& t : outputs) max_payload += t.byte_size() * runs;
  // The pool kills a request at `timeout`; it may first have to restart a
  // process, which takes up to its start-up allowance.
  absl::StatusOr<Frame> reply =
      ReadFrame(fd_, buffer_, start + timeout + start_allowance_ + kAnswerTimeout, max_payload);
  if (absl::IsDeadlineExceeded(reply.status())) {
    return lost(BackendOutcome::Kind::kTimedOut, "the backend pool did not answer in time");
  }
  if (!reply.ok()) {
    return lost(BackendOutcome::Kind::kExited,
                absl::StrCat("the backend pool went away: ", reply.status().message()));
  }
  absl::StatusOr<BackendOutcome> decoded = DecodePoolOutcome(*reply, outputs, runs);
  if (!decoded.ok()) {
    return lost(BackendOutcome::Kind::kProtocolError,
                absl::StrCat("the backend pool's answer: ", decoded.status().message()));
  }
  return *std::move(decoded);
}

}  // namespace rk::repro
