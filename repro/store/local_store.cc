#include "repro/store/local_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/sha256.h"

namespace rk::repro {
namespace {


constexpr int64_t kStaleTempSeconds = 24 * 3600;

bool IsLowerHex(absl::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

struct Entry {
  enum Kind { kObject, kTemp, kStray };
  Kind kind;
  std::string path;
  std::string name;
};

absl::StatusOr<std::vector<std::string>> SortedNames(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return ErrnoStatus(errno, "listing", dir);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    absl::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// Moves an object's modification time forward (at least 1 ns past what it
// was, whatever the clock's granularity): the sign a concurrent Gc reads as
// "stored again since I listed it". Returns false when the object is gone,
// so the caller writes it anew. Without permission to set the time (another
// user's object in a shared store) the object counts as present.
bool FreshenObject(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  timespec next = st.st_mtim;
  if (++next.tv_nsec == 1000000000) {
    next.tv_nsec = 0;
    ++next.tv_sec;
  }
  if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
    next = now;
  }
  const timespec times[2] = {{0, UTIME_OMIT}, next};
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0) return true;
  return errno != ENOENT && errno != ENOTDIR;
}

bool SameTime(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Everything under <root>/cas, classified, in a deterministic order.
absl::StatusOr<std::vector<Entry>> ScanStore(const std::string& root) {
  std::string cas = root + "/cas";
  std::vector<Entry> entries;
  if (!IsDir(cas)) return entries;
  absl::StatusOr<std::vector<std::string>> top = SortedNames(cas);
  if (!top.ok()) return top.status();
  for (const std::string& shard : *top) {
    std::string shard_path = cas + "/" + shard;
    bool is_shard = shard.size() == 2 && IsLowerHex(shard) && IsDir(shard_path);
    if (!is_shard) {
      bool temp = absl::StartsWith(shard, kTempPrefix);
      entries.push_back({temp ? Entry::kTemp : Entry::kStray, shard_path, shard});
      continue;
    }
    absl::StatusOr<std::vector<std::string>> names = SortedNames(shard_path);
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      Entry::Kind kind = Entry::kStray;
      if (name.size() == Digest::kHexChars && IsLowerHex(name) && absl::StartsWith(name, shard)) {
        kind = Entry::kObject;
      } else if (absl::StartsWith(name, kTempPrefix)) {
        kind = Entry::kTemp;
      }
      entries.push_back({kind, shard_path + "/" + name, name});
    }
  }
  return entries;
}

}  // namespace

std::string DefaultStoreRoot() {
  const char* env = std::getenv("REPROKIT_STORE");
  if (env != nullptr && *env != '\0') return env;
  const char* home = std::getenv("HOME");
  return absl::StrCat(home != nullptr ? home : "", "/.cache/reprokit/store");
}

absl::StatusOr<std::unique_ptr<LocalStore>> LocalStore::Open(std::string root,
                                                             LocalStoreOptions options) {
  if (root.empty()) return absl::InvalidArgumentError("store root is empty");
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  struct stat st;
  if (::stat(root.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("store root ", root, " is not a directory"));
  }
  return std::unique_ptr<LocalStore>(new LocalStore(std::move(root), options));
}

std::string LocalStore::ObjectPath(const Digest& digest) const {
  std::string hex = digest.Hex();
  return absl::StrCat(root_, "/cas/", hex.substr(0, 2), "/", hex);
}

absl::StatusOr<bool> LocalStore::Contains(const Digest& digest) {
  std::string path = ObjectPath(digest);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return S_ISREG(st.st_mode);
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return ErrnoStatus(errno, "checking", path);
}

absl::StatusOr<Digest> LocalStore::Put(absl::string_view bytes, const PutOptions& options) {
  Digest digest = Sha256(bytes);
  if (FreshenObject(ObjectPath(digest))) return digest;
  StringSource source(bytes);
  return WriteNew(source, options, &digest);
}

absl::StatusOr<Digest> LocalStore::PutStream(ByteSource& source, const PutOptions& options) {
  return WriteNew(source, options, nullptr);
}

absl::StatusOr<Digest> LocalStore::WriteNew(ByteSource& source, const PutOptions& options,
                                            const Digest* known) {
  std::string what = known != nullptr ? " " + known->Hex() : "";
  auto wrap = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("store ", root_, ": cannot write object", what,
                                               ": ", s.message()));
  };
  // With the digest known the temp file goes beside its final name; a stream
  // learns its digest only at the end, so it is written in cas/ (same file
  // system, so the rename is still atomic).
  std::string dir = root_ + "/cas";
  if (known != nullptr) dir += "/" + known->Hex().substr(0, 2);
  if (absl::Status s = MakeDirs(dir); !s.ok()) return wrap(s);
  std::string temp = TempPathIn(dir, known != nullptr ? known->Hex() : "stream");
  absl::StatusOr<Digest> digest = WriteNewOrCleanUp(source, options, known, temp);
  if (!digest.ok()) {
    ::unlink(temp.c_str());
    return wrap(digest.status());
  }
  return digest;
}

absl::StatusOr<Digest> LocalStore::WriteNewOrCleanUp(ByteSource& source, const PutOptions& options,
                                                     const Digest* known,
                                                     const std::string& temp) {
  // Objects are immutable: read-only from the moment they exist.
  ScopedFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444));
  if (fd.get() < 0) return ErrnoStatus(errno, "creating", temp);
  absl::StatusOr<WrittenObject> written = WriteObject(source, fd.get(), temp, options.element_size,
                                                      options_.compression, known == nullptr);
  if (!written.ok()) return written.status();
  if (options_.sync && ::fsync(fd.get()) != 0) return ErrnoStatus(errno, "syncing", temp);
  if (absl::Status s = fd.Close(temp); !s.ok()) return s;

  Digest digest = known != nullptr ? *known : written->digest;
  std::string final_path = ObjectPath(digest);
  std::string shard = final_path.substr(0, final_path.find_last_of('/'));
  if (known == nullptr) {
    if (FreshenObject(final_path)) {
      ::unlink(temp.c_str());
      return digest;
    }
    if (absl::Status s = MakeDirs(shard); !s.ok()) return s;
  }
  // A racing writer of the same blob may rename first; replacing its file
  // with identical bytes is harmless and readers holding it open keep theirs.
  if (::rename(temp.c_str(), final_path.c_str()) != 0) {
    return ErrnoStatus(errno, "renaming into place", final_path);
  }
  if (options_.sync) {
    if (absl::Status s = SyncDir(shard); !s.ok()) return s;
  }
  return digest;
}

absl::Status LocalStore::GetStream(const Digest& digest, ByteSink& sink) {
  std::string path = ObjectPath(digest);
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return absl::NotFoundError(
          absl::StrCat("object ", digest.Hex(), " is not in store ", root_));
    }
    return ErrnoStatus(errno, "opening", path);
  }
  return ReadObject(fd.get(), path, digest, sink);
}

absl::StatusOr<std::string> LocalStore::Get(const Digest& digest) {
  std::string bytes;
  // Reserving the size the header states avoids regrowing a large blob; a
  // corrupt header must not make us reserve absurd amounts, hence the cap.
  absl::StatusOr<ObjectInfo> info = Stat(digest);
  if (info.ok()) {
    bytes.reserve(std::min<uint64_t>(info->raw_size, info->stored_size * 64 + (1 << 20)));
  }
  StringSink sink(&bytes);
  absl::Status status = GetStream(digest, sink);
  if (!status.ok()) return status;
  return bytes;
}

absl::StatusOr<ObjectInfo> LocalStore::Stat(const Digest& digest) {
  std::string path = ObjectPath(digest);
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return absl::NotFoundError(
          absl::StrCat("object ", digest.Hex(), " is not in store ", root_));
    }
    return ErrnoStatus(errno, "opening", path);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "reading", path);
  char bytes[kObjectHeaderBytes];
  absl::StatusOr<size_t> n = ReadFull(fd.get(), bytes, sizeof(bytes), path);
  if (!n.ok()) return n.status();
  absl::StatusOr<ObjectHeader> header = DecodeObjectHeader(absl::string_view(bytes, *n));
  if (!header.ok()) {
    return absl::DataLossError(absl::StrCat("object ", digest.Hex(), " at ", path,
                                            " is corrupt: ", header.status().message()));
  }
  return ObjectInfo{digest, header->raw_size, static_cast<uint64_t>(st.st_size)};
}

absl::Status LocalStore::ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) {
  absl::StatusOr<std::vector<Entry>> entries = ScanStore(root_);
  if (!entries.ok()) return entries.status();
  for (const Entry& e : *entries) {
    if (e.kind != Entry::kObject) continue;
    absl::StatusOr<Digest> digest = Digest::FromHex(e.name);
    if (!digest.ok()) return digest.status();
    if (absl::Status s = visit(*digest); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status LocalStore::Remove(const Digest& digest) {
  std::string path = ObjectPath(digest);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return absl::NotFoundError(
          absl::StrCat("object ", digest.Hex(), " is not in store ", root_));
    }
    return ErrnoStatus(errno, "removing", path);
  }
  return absl::OkStatus();
}

namespace {

class DiscardSink : public ByteSink {
 public:
  absl::Status Write(absl::string_view) override { return absl::OkStatus(); }
};

}  // namespace

absl::StatusOr<VerifyReport> LocalStore::Verify(bool remove_corrupt) {
  absl::StatusOr<std::vector<Entry>> entries = ScanStore(root_);
  if (!entries.ok()) return entries.status();
  VerifyReport report;
  for (const Entry& e : *entries) {
    if (e.kind == Entry::kTemp) {
      ++report.temp_files;
      continue;
    }
    if (e.kind == Entry::kStray) {
      report.stray_files.push_back(e.path);
      continue;
    }
    ++report.objects;
    absl::StatusOr<Digest> digest = Digest::FromHex(e.name);
    if (!digest.ok()) return digest.status();
    DiscardSink sink;
    absl::Status status = GetStream(*digest, sink);
    if (status.ok() || absl::IsNotFound(status)) continue;  // NotFound: removed meanwhile
    report.corrupt.push_back({e.path, std::string(status.message())});
    if (remove_corrupt) {
      if (absl::Status s = Remove(*digest); !s.ok() && !absl::IsNotFound(s)) return s;
    }
  }
  return report;
}

absl::StatusOr<StoreStats> LocalStore::Stats() {
  absl::StatusOr<std::vector<Entry>> entries = ScanStore(root_);
  if (!entries.ok()) return entries.status();
  StoreStats stats;
  for (const Entry& e : *entries) {
    if (e.kind == Entry::kTemp) {
      struct stat st;
      if (::stat(e.path.c_str(), &st) == 0) stats.temp_bytes += st.st_size;
      ++stats.temp_files;
      continue;
    }
    if (e.kind != Entry::kObject) continue;
    absl::StatusOr<Digest> digest = Digest::FromHex(e.name);
    if (!digest.ok()) return digest.status();
    absl::StatusOr<ObjectInfo> info = Stat(*digest);
    if (absl::IsNotFound(info.status())) continue;
    ++stats.objects;
    if (!info.ok()) {
      ++stats.unreadable;
      continue;
    }
    stats.raw_bytes += info->raw_size;
    stats.stored_bytes += info->stored_size;
  }
  return stats;
}

absl::StatusOr<GcReport> LocalStore::Gc(
    absl::FunctionRef<absl::StatusOr<absl::btree_set<Digest>>()> referenced, bool dry_run) {
  // Listed first, then the references: an object written after the listing
  // is no candidate, whatever references it.
  absl::StatusOr<std::vector<Entry>> entries = ScanStore(root_);
  if (!entries.ok()) return entries.status();
  std::vector<timespec> listed_mtime(entries->size());
  for (size_t i = 0; i < entries->size(); ++i) {
    struct stat st;
    if ((*entries)[i].kind == Entry::kObject && ::stat((*entries)[i].path.c_str(), &st) == 0) {
      listed_mtime[i] = st.st_mtim;
    }
  }
  absl::StatusOr<absl::btree_set<Digest>> kept = referenced();
  if (!kept.ok()) return kept.status();
  GcReport report;
  const time_t now = std::time(nullptr);
  for (size_t i = 0; i < entries->size(); ++i) {
    const Entry& e = (*entries)[i];
    if (e.kind == Entry::kTemp) {
      struct stat st;
      bool stale = ::lstat(e.path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                   now - st.st_mtime > kStaleTempSeconds;
      if (stale && !dry_run && ::unlink(e.path.c_str()) == 0) ++report.temp_files_removed;
      continue;
    }
    if (e.kind != Entry::kObject) continue;
    absl::StatusOr<Digest> digest = Digest::FromHex(e.name);
    if (!digest.ok()) return digest.status();
    if (kept->contains(*digest)) {
      ++report.kept;
      continue;
    }
    struct stat st;
    if (::stat(e.path.c_str(), &st) != 0) continue;  // removed meanwhile
    absl::StatusOr<ObjectInfo> info = Stat(*digest);
    ObjectInfo removed = info.ok() ? *info : ObjectInfo{*digest, 0, uint64_t(st.st_size)};
    if (!dry_run) {
      // Renamed aside first: a Put that freshens the object after the rename
      // finds it gone and writes it anew; one that freshened it before shows
      // in its time, and the object goes back.
      const std::string aside = TempPathIn(e.path.substr(0, e.path.find_last_of('/')), e.name);
      if (::rename(e.path.c_str(), aside.c_str()) != 0) {
        if (errno == ENOENT) continue;
        return ErrnoStatus(errno, "removing", e.path);
      }
      struct stat moved;
      if (::stat(aside.c_str(), &moved) == 0 && !SameTime(moved.st_mtim, listed_mtime[i])) {
        if (::rename(aside.c_str(), e.path.c_str()) != 0) {
          return ErrnoStatus(errno, "putting back", e.path);
        }
        ++report.kept;
        continue;
      }
      if (::unlink(aside.c_str()) != 0 && errno != ENOENT) {
        return ErrnoStatus(errno, "removing", aside);
      }
    } else if (!SameTime(st.st_mtim, listed_mtime[i])) {
      ++report.kept;
      continue;
    }
    report.removed_bytes += removed.stored_size;
    report.removed.push_back(removed);
  }
  return report;
}

}  // namespace rk::repro
