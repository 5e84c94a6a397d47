#include "repro/isolate/fd_io.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace rk::repro::isolate_internal {
namespace {

absl::Status ErrnoStatus(std::string_view what) {
  return absl::InternalError(absl::StrCat(std::string(what), ": ", std::strerror(errno)));
}

uint64_t DecodeLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint32_t DecodeLe32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

void UniqueFd::Reset(int fd) {
  // close() is not retried on EINTR: on Linux the descriptor is gone anyway.
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

absl::StatusOr<std::pair<UniqueFd, UniqueFd>> MakeSocketPair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return ErrnoStatus("socketpair");
  }
  return std::make_pair(UniqueFd(fds[0]), UniqueFd(fds[1]));
}

absl::Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write");
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> ReadExact(int fd, char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("read");
    }
    if (n == 0) {
      if (done == 0) return false;
      return absl::DataLossError("stream ended inside a message");
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

absl::Status SendWithFds(int socket, std::string_view payload,
                         const std::vector<int>& fds) {
  iovec iov{const_cast<char*>(payload.data()), payload.size()};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
  }
  while (true) {
    ssize_t n = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("sendmsg");
    if (static_cast<size_t>(n) != payload.size()) {
      return absl::InternalError("sendmsg: short write");
    }
    return absl::OkStatus();
  }
}

absl::Status ReceiveWithFds(int socket, std::string* payload,
                            size_t payload_size, std::vector<UniqueFd>* fds,
                            size_t max_fds) {
  payload->assign(payload_size, '\0');
  iovec iov{payload->data(), payload_size};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * max_fds));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t n;
  do {
    n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return ErrnoStatus("recvmsg");
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      fds->emplace_back(fd);
    }
  }
  if (n == 0) return absl::UnavailableError("peer closed the socket");
  if (static_cast<size_t>(n) != payload_size) {
    // The messages are a few bytes; a short one means a broken peer.
    return absl::DataLossError("recvmsg: short message");
  }
  if (msg.msg_flags & MSG_CTRUNC) {
    return absl::InternalError("recvmsg: descriptors truncated");
  }
  return absl::OkStatus();
}

std::string EncodeFrameHeader(uint32_t tag, uint64_t payload_size) {
  std::string header(kFrameHeaderSize, '\0');
  for (int i = 0; i < 4; ++i) header[i] = static_cast<char>(tag >> (8 * i));
  for (int i = 0; i < 8; ++i) {
    header[4 + i] = static_cast<char>(payload_size >> (8 * i));
  }
  return header;
}

absl::Status WriteFrame(int fd, uint32_t tag, std::string_view payload) {
  if (absl::Status s = WriteAll(fd, EncodeFrameHeader(tag, payload.size()));
      !s.ok()) {
    return s;
  }
  return WriteAll(fd, payload);
}

absl::StatusOr<std::optional<Frame>> ReadFrame(int fd) {
  char header[kFrameHeaderSize];
  absl::StatusOr<bool> got = ReadExact(fd, header, sizeof(header));
  if (!got.ok()) return got.status();
  if (!*got) return std::nullopt;
  Frame frame;
  frame.tag = DecodeLe32(header);
  uint64_t size = DecodeLe64(header + 4);
  if (size > kMaxFramePayload) return absl::DataLossError("frame too large");
  frame.payload.resize(size);
  got = ReadExact(fd, frame.payload.data(), size);
  if (!got.ok()) return got.status();
  if (!*got && size > 0) return absl::DataLossError("stream ended in a frame");
  return frame;
}

absl::StatusOr<size_t> FrameDecoder::Feed(std::string_view bytes) {
  size_t used = 0;
  if (!size_.has_value()) {
    size_t take = std::min(kFrameHeaderSize - header_.size(), bytes.size());
    header_.append(bytes.substr(0, take));
    used += take;
    if (header_.size() < kFrameHeaderSize) return used;
    frame_.tag = DecodeLe32(header_.data());
    size_ = DecodeLe64(header_.data() + 4);
    if (*size_ > kMaxFramePayload) return absl::DataLossError("frame too large");
    frame_.payload.reserve(*size_);
    bytes.remove_prefix(take);
  }
  size_t take = std::min<uint64_t>(*size_ - frame_.payload.size(), bytes.size());
  frame_.payload.append(bytes.substr(0, take));
  return used + take;
}

bool FrameDecoder::Complete() const {
  return size_.has_value() && frame_.payload.size() == *size_;
}

Frame FrameDecoder::Take() {
  Frame out = std::move(frame_);
  frame_ = Frame();
  header_.clear();
  size_.reset();
  return out;
}

}  // namespace rk::repro::isolate_internal
