// POSIX file helpers: errno to Status with the path in the message, whole
// reads and writes that retry on EINTR and short counts, whole-file reads and
// (atomic) writes, and unique temporary names beside a destination so
// rename() stays atomic. Every error names the path.
//
// Tested by base/file_util_test.cc and, under concurrency, by
// repro/store/local_store_concurrency_test.cc.
#ifndef REPROKIT_BASE_FILE_UTIL_H_
#define REPROKIT_BASE_FILE_UTIL_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rk {

// "<what> <path>: <strerror>" with a code that fits the errno: out of space
// (ENOSPC, EDQUOT, EFBIG) is ResourceExhausted, permissions and read-only
// file systems are PermissionDenied, ENOENT is NotFound, a directory where a
// file is expected (EISDIR, ENOTDIR, ENAMETOOLONG) is InvalidArgument.
absl::Status ErrnoStatus(int error, absl::string_view what, absl::string_view path);

absl::Status WriteAll(int fd, const char* data, size_t size, absl::string_view path);
// Reads until `size` bytes or end of file; returns how many were read.
absl::StatusOr<size_t> ReadFull(int fd, char* data, size_t size, absl::string_view path);

// "<dir>/.tmp.<stem>.<pid>.<random>": unique among concurrent processes and
// threads, hidden from object listings by its leading dot.
std::string TempPathIn(absl::string_view dir, absl::string_view stem);
inline constexpr absl::string_view kTempPrefix = ".tmp.";

// mkdir -p; an existing directory (including one created by a racing
// process) is success.
absl::Status MakeDirs(const std::string& path);
// Makes a rename in `dir` durable.
absl::Status SyncDir(const std::string& dir);

// The whole file. NotFound when it does not exist; a directory is
// InvalidArgument.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);
// Creates or truncates `path` and writes `contents`.
absl::Status WriteStringToFile(const std::string& path, absl::string_view contents);
// Writes `contents` to a temporary file beside `path`, syncs it and renames
// it over `path`: readers see the old or the new contents, never a mix.
// Creates missing parent directories.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// Closes `fd` on destruction unless released.
class ScopedFd {
 public:
  explicit ScopedFd(int fd = -1) : fd_(fd) {}
  ~ScopedFd();
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }
  // Closes now and reports a failed close (which can carry a write error).
  absl::Status Close(absl::string_view path);

 private:
  int fd_;
};

}  // namespace rk

#endif  // REPROKIT_BASE_FILE_UTIL_H_
