#include "repro/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/sha256.h"

namespace rk::repro {
namespace {

constexpr size_t kHashChunk = 4 << 20;

class FdSink : public ByteSink {
 public:
  FdSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  absl::Status Write(absl::string_view bytes) override {
    return WriteAll(fd_, bytes.data(), bytes.size(), path_);
  }

 private:
  int fd_;
  std::string path_;
};

}  // namespace

absl::StatusOr<size_t> FdSource::Read(char* buffer, size_t size) {
  while (true) {
    ssize_t n = ::read(fd_, buffer, size);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return ErrnoStatus(errno, "reading", "input stream");
  }
}

absl::StatusOr<size_t> StringSource::Read(char* buffer, size_t size) {
  size_t n = std::min(size, bytes_.size());
  std::memcpy(buffer, bytes_.data(), n);
  bytes_.remove_prefix(n);
  return n;
}

absl::StatusOr<Digest> Store::PutFile(const std::string& path, const PutOptions& options) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus(errno, "opening", path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "reading", path);

  // Hash first: an object already present then costs one read of the file.
  Sha256Hasher hasher;
  auto buffer = std::make_unique<char[]>(kHashChunk);
  while (true) {
    absl::StatusOr<size_t> n = ReadFull(fd.get(), buffer.get(), kHashChunk, path);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    hasher.Update(buffer.get(), *n);
  }
  Digest digest = hasher.Finish();
  absl::StatusOr<bool> present = Contains(digest);
  if (!present.ok()) return present.status();
  if (*present) return digest;

  if (::lseek(fd.get(), 0, SEEK_SET) != 0) return ErrnoStatus(errno, "seeking", path);
  FdSource source(fd.get(), static_cast<uint64_t>(st.st_size));
  absl::StatusOr<Digest> stored = PutStream(source, options);
  if (!stored.ok()) return stored.status();
  if (*stored != digest) {
    return absl::AbortedError(absl::StrCat(path, " changed while it was being stored (sha256 ",
                                           digest.Hex(), ", then ", stored->Hex(), ")"));
  }
  return digest;
}

absl::Status Store::GetToFile(const Digest& digest, const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, std::max<size_t>(slash, 1));
  std::string temp = TempPathIn(dir, digest.Hex());
  ScopedFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoStatus(errno, "creating", temp);
  FdSink sink(fd.get(), temp);
  absl::Status status = GetStream(digest, sink);
  if (status.ok() && ::fsync(fd.get()) != 0) status = ErrnoStatus(errno, "syncing", temp);
  if (absl::Status closed = fd.Close(temp); status.ok()) status = closed;
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = ErrnoStatus(errno, "renaming into place", path);
  }
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

absl::StatusOr<std::vector<Digest>> Store::List() {
  std::vector<Digest> digests;
  absl::Status status = ForEach([&](const Digest& d) {
    digests.push_back(d);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  std::sort(digests.begin(), digests.end());
  return digests;
}

}  // namespace rk::repro
