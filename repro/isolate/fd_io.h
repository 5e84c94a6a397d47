// File-descriptor plumbing for process isolation: an owning fd, EINTR-safe
// blocking reads and writes, fd passing over Unix sockets (SCM_RIGHTS), and
// the length-prefixed framing spoken between a pool, its fork server and its
// workers.
//
// Needs: Linux (AF_UNIX sockets). Guarantees: nothing here raises SIGPIPE
// (socket writes use MSG_NOSIGNAL); every call retries on EINTR.
// Shown by fd_io_test.cc.
#ifndef REPROKIT_REPRO_ISOLATE_FD_IO_H_
#define REPROKIT_REPRO_ISOLATE_FD_IO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rk::repro::isolate_internal {

// Owns one file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(other.Release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release() { return std::exchange(fd_, -1); }
  void Reset(int fd = -1);

 private:
  int fd_ = -1;
};

// A connected AF_UNIX stream socket pair, both ends close-on-exec.
absl::StatusOr<std::pair<UniqueFd, UniqueFd>> MakeSocketPair();

// Blocking, EINTR-safe. WriteAll fails on a closed peer instead of raising
// SIGPIPE when `fd` is a socket.
absl::Status WriteAll(int fd, std::string_view data);
// Reads exactly `size` bytes. Returns false at a clean end of stream before
// the first byte, an error for a stream cut short or a failed read.
absl::StatusOr<bool> ReadExact(int fd, char* data, size_t size);

// Sends `payload` plus the descriptors `fds` as one message; ReceiveWithFds
// is its counterpart (at most `max_fds` descriptors, close-on-exec).
absl::Status SendWithFds(int socket, std::string_view payload,
                         const std::vector<int>& fds);
absl::Status ReceiveWithFds(int socket, std::string* payload,
                            size_t payload_size, std::vector<UniqueFd>* fds,
                            size_t max_fds);

// A frame: a 4-byte tag, an 8-byte little-endian length, then the payload.
struct Frame {
  uint32_t tag = 0;
  std::string payload;
};
inline constexpr size_t kFrameHeaderSize = 12;
// Frames larger than this are treated as a corrupt stream.
inline constexpr uint64_t kMaxFramePayload = uint64_t{4} << 30;

std::string EncodeFrameHeader(uint32_t tag, uint64_t payload_size);
absl::Status WriteFrame(int fd, uint32_t tag, std::string_view payload);
// Blocking read of one frame; std::nullopt at a clean end of stream.
absl::StatusOr<std::optional<Frame>> ReadFrame(int fd);

// Incremental decoder for a non-blocking reader: feed bytes as they arrive,
// take a frame once Complete().
class FrameDecoder {
 public:
  // Consumes bytes up to the end of the current frame; returns how many.
  absl::StatusOr<size_t> Feed(std::string_view bytes);
  bool Complete() const;
  // True once some but not all bytes of a frame arrived.
  bool Partial() const { return !Complete() && !header_.empty(); }
  Frame Take();

 private:
  std::string header_;
  std::optional<uint64_t> size_;
  Frame frame_;
};

}  // namespace rk::repro::isolate_internal

#endif  // REPROKIT_REPRO_ISOLATE_FD_IO_H_
