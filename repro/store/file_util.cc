#include "repro/store/file_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"

namespace rk::repro::internal {

absl::Status ErrnoStatus(int error, absl::string_view what, absl::string_view path) {
  std::string message = absl::StrCat(what, " ", path, ": ", std::strerror(error));
  switch (error) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return absl::ResourceExhaustedError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOENT:
      return absl::NotFoundError(message);
    default:
      return absl::UnknownError(message);
  }
}

absl::Status WriteAll(int fd, const char* data, size_t size, absl::string_view path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "writing", path);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> ReadFull(int fd, char* data, size_t size, absl::string_view path) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "reading", path);
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

std::string TempPathIn(absl::string_view dir, absl::string_view stem) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 random(std::random_device{}());
  return absl::StrCat(dir, "/", kTempPrefix, stem, ".", ::getpid(), ".",
                      counter.fetch_add(1) ^ random());
}

absl::Status MakeDirs(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(path, " exists and is not a directory"));
  }
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    absl::Status parent = MakeDirs(path.substr(0, slash));
    if (!parent.ok()) return parent;
  }
  if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) {
    return ErrnoStatus(errno, "creating directory", path);
  }
  return absl::OkStatus();
}

absl::Status SyncDir(const std::string& dir) {
  ScopedFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus(errno, "opening directory", dir);
  if (::fsync(fd.get()) != 0 && errno != EINVAL) return ErrnoStatus(errno, "syncing", dir);
  return fd.Close(dir);
}

ScopedFd::~ScopedFd() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status ScopedFd::Close(absl::string_view path) {
  int fd = fd_;
  fd_ = -1;
  if (fd >= 0 && ::close(fd) != 0 && errno != EINTR) return ErrnoStatus(errno, "closing", path);
  return absl::OkStatus();
}

}  // namespace rk::repro::internal
