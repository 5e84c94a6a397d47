#include "compiler/support/disk_kernel_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/digest.h"
#include "base/file_util.h"
#include "base/sha256.h"

namespace rk::compiler {
namespace {

// Header: magic, format version, key (64 hex), object size (16 hex), object
// SHA-256 (64 hex), each ended by a newline; the object follows.
constexpr std::string_view kMagic = "reprokit-kernel-object\n";
constexpr std::string_view kFormat = "1\n";
constexpr size_t kHeaderBytes = kMagic.size() + kFormat.size() + 65 + 17 + 65;

std::string Header(std::string_view key, std::string_view object) {
  char size[32];
  std::snprintf(size, sizeof(size), "%016llx", static_cast<unsigned long long>(object.size()));
  return absl::StrCat(std::string(kMagic), std::string(kFormat), std::string(key), "\n", size,
                      "\n", Sha256Hex(object), "\n");
}

bool ValidKey(std::string_view key) {
  return key.size() == 64 && Digest::IsHex(std::string(key));
}

}  // namespace

std::string DiskKernelCache::DirFromEnvironment() {
  if (const char* dir = std::getenv("REPROKIT_KERNEL_CACHE"); dir != nullptr && *dir != 0) {
    return std::string_view(dir) == "off" ? "" : dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return absl::StrCat(xdg, "/reprokit/kernels");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    return absl::StrCat(home, "/.cache/reprokit/kernels");
  }
  return "";
}

namespace {

uint64_t MaxBytesFromEnvironment() {
  if (const char* mb = std::getenv("REPROKIT_KERNEL_CACHE_MAX_MB"); mb != nullptr && *mb != 0) {
    const long long value = std::atoll(mb);
    if (value > 0) return static_cast<uint64_t>(value) << 20;
  }
  return DiskKernelCache::kDefaultMaxBytes;
}

}  // namespace

DiskKernelCache::DiskKernelCache(std::string dir, uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes) {}

DiskKernelCache* DiskKernelCache::Global() {
  static DiskKernelCache* cache = [] {
    const std::string dir = DirFromEnvironment();
    return dir.empty() ? nullptr : new DiskKernelCache(dir, MaxBytesFromEnvironment());
  }();
  return cache;
}

std::string DiskKernelCache::PathOf(std::string_view key) const {
  return absl::StrCat(dir_, "/", std::string(key), ".o");
}

std::optional<std::string> DiskKernelCache::Load(std::string_view key) {
  if (!ValidKey(key)) {
    ++misses_;
    return std::nullopt;
  }
  const std::string path = PathOf(key);
  absl::StatusOr<std::string> file = ReadFileToString(path);
  if (!file.ok()) {
    ++misses_;
    return std::nullopt;
  }
  std::string_view view(*file);
  bool valid = view.size() >= kHeaderBytes && view.substr(0, kMagic.size()) == kMagic;
  std::string_view object;
  if (valid) {
    object = view.substr(kHeaderBytes);
    valid = view.substr(0, kHeaderBytes) == Header(key, object);
  }
  if (!valid) {
    ++corrupt_;
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // most recently used
  return std::string(object);
}

void DiskKernelCache::Store(std::string_view key, std::string_view object) {
  if (!ValidKey(key)) {
    ++write_failures_;
    return;
  }
  const std::string path = PathOf(key);
  if (absl::Status s = MakeDirs(dir_); !s.ok()) {
    ++write_failures_;
    return;
  }
  // No fsync: a torn entry after a crash fails its checksum and is rebuilt.
  const std::string temp = TempPathIn(dir_, absl::StrCat(std::string(key), ".o"));
  const std::string header = Header(key, object);
  absl::Status status;
  {
    ScopedFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd.get() < 0) {
      ++write_failures_;
      return;
    }
    status = WriteAll(fd.get(), header.data(), header.size(), temp);
    if (status.ok()) status = WriteAll(fd.get(), object.data(), object.size(), temp);
    if (absl::Status closed = fd.Close(temp); status.ok()) status = closed;
  }
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) status = absl::InternalError("");
  if (!status.ok()) {
    ::unlink(temp.c_str());
    ++write_failures_;
    return;
  }
  EvictIfOver(header.size() + object.size());
}

void DiskKernelCache::EvictIfOver(uint64_t written) {
  std::lock_guard<std::mutex> lock(mu_);
  estimated_bytes_ += written;
  if (scanned_ && estimated_bytes_ <= max_bytes_) return;
  struct Entry {
    timespec mtime;
    uint64_t bytes;
    std::string path;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  DIR* dir = ::opendir(dir_.c_str());
  if (dir == nullptr) return;
  while (dirent* e = ::readdir(dir)) {
    const absl::string_view name(e->d_name);
    const bool temporary = absl::StartsWith(name, kTempPrefix);
    if (!temporary && !absl::EndsWith(name, ".o")) continue;
    std::string path = absl::StrCat(dir_, "/", std::string(name));
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (temporary) {
      // What a writer killed between write and rename left; an hour is far
      // longer than any write takes.
      if (st.st_mtim.tv_sec + 3600 < ::time(nullptr)) ::unlink(path.c_str());
      continue;
    }
    total += static_cast<uint64_t>(st.st_size);
    entries.push_back({st.st_mtim, static_cast<uint64_t>(st.st_size), std::move(path)});
  }
  ::closedir(dir);
  scanned_ = true;
  estimated_bytes_ = total;
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.mtime.tv_sec != b.mtime.tv_sec ? a.mtime.tv_sec < b.mtime.tv_sec
                                            : a.mtime.tv_nsec < b.mtime.tv_nsec;
  });
  const uint64_t target = max_bytes_ / 4 * 3;
  for (const Entry& entry : entries) {
    if (total <= target) break;
    if (::unlink(entry.path.c_str()) == 0) ++evicted_;
    total -= entry.bytes;  // gone, by us or by another process
  }
  estimated_bytes_ = total;
}

}  // namespace rk::compiler
