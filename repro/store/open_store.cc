#include "repro/store/open_store.h"

#include <cstdlib>

#include "repro/store/caching_store.h"
#include "repro/store/http_store.h"
#include "repro/store/local_store.h"

namespace rk::repro {

std::string DefaultCacheRoot() {
  const char* cache = std::getenv("REPROKIT_STORE_CACHE");
  if (cache != nullptr && *cache != '\0') return cache;
  const char* store = std::getenv("REPROKIT_STORE");
  if (store != nullptr && *store != '\0' && !LooksLikeUrl(store)) return store;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : ".") + "/.cache/reprokit/store";
}

bool IsRemoteStoreSpec(const std::string& spec) {
  return LooksLikeUrl(spec.empty() ? DefaultStoreRoot() : spec);
}

absl::StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& given,
                                                 const OpenStoreOptions& options) {
  const std::string spec = given.empty() ? DefaultStoreRoot() : given;
  if (!LooksLikeUrl(spec)) {
    absl::StatusOr<std::unique_ptr<LocalStore>> local = LocalStore::Open(spec);
    if (!local.ok()) return local.status();
    return std::unique_ptr<Store>(std::move(*local));
  }
  absl::StatusOr<std::unique_ptr<HttpStore>> remote =
      HttpStore::Open(spec, HttpStoreOptions::FromEnvironment());
  if (!remote.ok()) return remote.status();
  if (options.no_cache) return std::unique_ptr<Store>(std::move(*remote));
  absl::StatusOr<std::unique_ptr<LocalStore>> local =
      LocalStore::Open(options.cache_root.empty() ? DefaultCacheRoot() : options.cache_root);
  if (!local.ok()) return local.status();
  return std::unique_ptr<Store>(
      std::make_unique<CachingStore>(std::move(*local), std::move(*remote)));
}

}  // namespace rk::repro
