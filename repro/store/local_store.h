// The local content store: one directory, shared safely by many processes.
//
// Layout (docs/STORE.md): `<root>/cas/<first 2 hex>/<64 hex>`, each file an
// object in the format of object_format.h (header + zstd frame). Writers
// create a uniquely named temp file (`.tmp.*`) in the destination directory,
// fsync it and rename() it into place, so readers see whole objects or none
// and concurrent writers of one blob both succeed. A failed write (no space,
// read-only store, file size limit) removes its temp file and returns an
// error naming the store and the cause. Reads check the digest of every
// byte. Objects are never modified in place; Gc removes them. A Put of a blob
// already present moves the object's modification time forward, which tells
// a Gc running at the same time that the object is in use again.
//
// Tested by repro/store/local_store_test.cc (round trips, corruption,
// no-space and read-only errors, gc against writes that race it) and
// local_store_concurrency_test.cc (several processes writing at once).
#ifndef REPROKIT_REPRO_STORE_LOCAL_STORE_H_
#define REPROKIT_REPRO_STORE_LOCAL_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "repro/store/object_format.h"
#include "repro/store/store.h"

namespace rk::repro {

struct LocalStoreOptions {
  CompressionOptions compression;
  // fsync objects and their directory before a Put returns. Off only for
  // throwaway stores (tests, benchmarks of compression alone).
  bool sync = true;
};

// `$REPROKIT_STORE`, else `$HOME/.cache/reprokit/store`.
std::string DefaultStoreRoot();

struct CorruptObject {
  std::string path;
  std::string reason;
};

struct VerifyReport {
  int64_t objects = 0;                  // objects checked
  std::vector<CorruptObject> corrupt;   // failed the check, by path
  std::vector<std::string> stray_files; // neither objects nor temp files
  int64_t temp_files = 0;               // in-flight or abandoned writes
};

struct StoreStats {
  int64_t objects = 0;
  uint64_t raw_bytes = 0;
  uint64_t stored_bytes = 0;
  int64_t unreadable = 0;  // objects whose header could not be read
  int64_t temp_files = 0;
  uint64_t temp_bytes = 0;
  double ratio() const { return stored_bytes == 0 ? 1.0 : double(raw_bytes) / stored_bytes; }
};

struct GcReport {
  int64_t kept = 0;
  std::vector<ObjectInfo> removed;  // or, in a dry run, what would be
  uint64_t removed_bytes = 0;       // stored bytes freed
  int64_t temp_files_removed = 0;   // abandoned temp files (never in a dry run)
};

class LocalStore : public Store {
 public:
  // Does not create anything: directories appear on the first Put, so
  // opening a store to read or inspect it never writes.
  static absl::StatusOr<std::unique_ptr<LocalStore>> Open(std::string root,
                                                          LocalStoreOptions options = {});

  absl::StatusOr<Digest> Put(absl::string_view bytes, const PutOptions& options = {}) override;
  absl::StatusOr<Digest> PutStream(ByteSource& source, const PutOptions& options = {}) override;
  absl::StatusOr<std::string> Get(const Digest& digest) override;
  absl::Status GetStream(const Digest& digest, ByteSink& sink) override;
  absl::StatusOr<bool> Contains(const Digest& digest) override;
  absl::StatusOr<ObjectInfo> Stat(const Digest& digest) override;
  absl::Status ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) override;
  absl::Status Remove(const Digest& digest) override;

  // Re-reads and re-hashes every object. With `remove_corrupt`, deletes the
  // corrupt ones so that the next Put of their blob restores them.
  absl::StatusOr<VerifyReport> Verify(bool remove_corrupt = false);
  absl::StatusOr<StoreStats> Stats();
  // Removes every object not in the set `referenced()` returns (nothing with
  // dry_run) and temp files older than a day. Safe against writers running
  // at the same time: the objects are listed before `referenced` is called,
  // so an object written meanwhile is not a candidate, and an object that a
  // Put stores again meanwhile (its modification time moves forward, see
  // Put) is kept: a candidate is first renamed aside, and put back when its
  // time changed since the listing.
  absl::StatusOr<GcReport> Gc(
      absl::FunctionRef<absl::StatusOr<absl::btree_set<Digest>>()> referenced, bool dry_run);

  const std::string& root() const { return root_; }
  std::string ObjectPath(const Digest& digest) const;

 private:
  LocalStore(std::string root, LocalStoreOptions options)
      : root_(std::move(root)), options_(options) {}
  // Writes `source` to a temp file in `temp_dir` and renames it into place.
  // `known` is the digest when the caller has it already.
  absl::StatusOr<Digest> WriteNew(ByteSource& source, const PutOptions& options,
                                  const Digest* known);
  absl::StatusOr<Digest> WriteNewOrCleanUp(ByteSource& source, const PutOptions& options,
                                           const Digest* known, const std::string& temp);

  std::string root_;
  LocalStoreOptions options_;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_LOCAL_STORE_H_
