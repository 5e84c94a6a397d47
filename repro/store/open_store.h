// Opens the store a command names: `--store` / `--root`, else
// $REPROKIT_STORE, else ~/.cache/reprokit/store. A directory is a LocalStore;
// an `http(s)://HOST[:PORT]/PREFIX` URL is an HttpStore (a Bazel HTTP remote
// cache) behind a local read-through/write-through cache (CachingStore) in
// $REPROKIT_STORE_CACHE, else ~/.cache/reprokit/store (docs/STORE.md).
//
// Tested by repro/store/http_store_test.cc (OpenStoreTest).
#ifndef REPROKIT_REPRO_STORE_OPEN_STORE_H_
#define REPROKIT_REPRO_STORE_OPEN_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "repro/store/store.h"

namespace rk::repro {

struct OpenStoreOptions {
  // For a URL: no local cache in front.
  bool no_cache = false;
  // For a URL: the cache directory; "": DefaultCacheRoot().
  std::string cache_root;
};

// "" means the default (DefaultStoreRoot() in local_store.h).
absl::StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& spec,
                                                 const OpenStoreOptions& options = {});

// $REPROKIT_STORE_CACHE, else $REPROKIT_STORE when it is a directory, else
// ~/.cache/reprokit/store.
std::string DefaultCacheRoot();

// True when `spec` (or, if empty, the default) names a remote store.
bool IsRemoteStoreSpec(const std::string& spec);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_OPEN_STORE_H_
