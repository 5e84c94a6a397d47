#include "base/file_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"

namespace rk {

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
    case EISDIR:   // a directory where a file is expected
    case ENOTDIR:  // a file where a directory is expected
    case ENAMETOOLONG:
      return absl::InvalidArgumentError(message);
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

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus(errno, "reading", path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "reading", path);
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("reading ", path, ": is a directory"));
  }
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    absl::StatusOr<size_t> n = ReadFull(fd.get(), buffer, sizeof(buffer), path);
    if (!n.ok()) return n.status();
    text.append(buffer, *n);
    if (*n < sizeof(buffer)) break;
  }
  return text;
}

absl::Status WriteStringToFile(const std::string& path, absl::string_view contents) {
  ScopedFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoStatus(errno, "writing", path);
  if (absl::Status s = WriteAll(fd.get(), contents.data(), contents.size(), path); !s.ok()) {
    return s;
  }
  return fd.Close(path);
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string stem = slash == std::string::npos ? path : path.substr(slash + 1);
  if (slash != std::string::npos && slash > 0) {
    if (absl::Status s = MakeDirs(dir); !s.ok()) return s;
  }
  const std::string temp = TempPathIn(dir, stem);
  ScopedFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoStatus(errno, "writing", temp);
  absl::Status status = WriteAll(fd.get(), contents.data(), contents.size(), temp);
  if (status.ok() && ::fsync(fd.get()) != 0) status = ErrnoStatus(errno, "syncing", temp);
  if (absl::Status closed = fd.Close(temp); status.ok()) status = closed;
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = ErrnoStatus(errno, "renaming into place", path);
  }
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

}  // namespace rk
