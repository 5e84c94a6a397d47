// A local store in front of a remote one: reads go to the local store first
// and fetch a missing object from the remote once (read-through); writes go
// to both (write-through). A repeated `reprokit run` of a bundle whose blobs
// live on a remote cache touches the network only the first time.
//
// Only verified bytes are cached: the remote backend checks every body
// against its digest (http_store.h), and a failed fetch leaves nothing in the
// local store. ForEach, Stat and Remove act on the local store (the remote
// cannot list or delete).
//
// Tested by repro/store/http_store_test.cc (against nginx).
#ifndef REPROKIT_REPRO_STORE_CACHING_STORE_H_
#define REPROKIT_REPRO_STORE_CACHING_STORE_H_

#include <memory>
#include <string>

#include "repro/store/store.h"

namespace rk::repro {

class CachingStore : public Store {
 public:
  CachingStore(std::unique_ptr<Store> local, std::unique_ptr<Store> remote)
      : local_(std::move(local)), remote_(std::move(remote)) {}

  absl::StatusOr<Digest> Put(absl::string_view bytes, const PutOptions& options = {}) override;
  absl::StatusOr<Digest> PutStream(ByteSource& source, const PutOptions& options = {}) override;
  // Into the local store, then to the remote unless the remote has it (the
  // local copy alone does not count: Contains would say yes).
  absl::StatusOr<Digest> PutFile(const std::string& path, const PutOptions& options = {}) override;
  absl::StatusOr<std::string> Get(const Digest& digest) override;
  absl::Status GetStream(const Digest& digest, ByteSink& sink) override;
  absl::StatusOr<bool> Contains(const Digest& digest) override;
  absl::StatusOr<ObjectInfo> Stat(const Digest& digest) override;
  absl::Status ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) override;
  absl::Status Remove(const Digest& digest) override;

  // Copies the object into the local store if it is not there yet.
  absl::Status Fetch(const Digest& digest);
  // Copies a local object to the remote store if the remote lacks it.
  absl::Status Publish(const Digest& digest);

  Store& local() { return *local_; }
  Store& remote() { return *remote_; }

 private:
  std::unique_ptr<Store> local_;
  std::unique_ptr<Store> remote_;
};

// Copies one object from `from` to `to` through a temporary file (so a large
// blob is never held in memory), unless `to` has it already.
absl::Status CopyObject(Store& from, Store& to, const Digest& digest);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_CACHING_STORE_H_
