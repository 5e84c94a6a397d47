// Moving a bundle's blobs between its own blobs/ store and a shared store (a
// team's Bazel HTTP remote cache, docs/STORE.md): `reprokit store push|pull`
// and `pack --store`.
//
// A bundle's blobs are exactly the `sha256:<hex>` constants of graph.rk and
// the blob inputs of repro.json. Push copies those present in blobs/ to the
// shared store (skipping what it has); pull copies those missing from blobs/
// back, each verified against its digest before it lands, so a pulled bundle
// is self-contained again. Transfers run `parallel` at a time.
//
// Tested end to end by tools/store_remote_test.sh (against nginx).
#ifndef REPROKIT_REPRO_BUNDLE_BUNDLE_SYNC_H_
#define REPROKIT_REPRO_BUNDLE_BUNDLE_SYNC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/digest.h"
#include "repro/store/store.h"

namespace rk::repro {

// The digests a bundle needs, sorted.
absl::StatusOr<std::vector<Digest>> BundleBlobDigests(const std::string& bundle_dir);

struct SyncReport {
  int64_t blobs = 0;        // the bundle needs
  int64_t copied = 0;       // transferred now
  int64_t present = 0;      // already at the destination
  int64_t unavailable = 0;  // at neither end (push: missing from blobs/)
  std::vector<std::string> missing;  // hex digests found nowhere
};

absl::StatusOr<SyncReport> PushBundle(const std::string& bundle_dir, Store& shared,
                                      int parallel = 8);
// NotFound (naming the digests) when the shared store lacks a needed blob
// that blobs/ lacks too; what could be fetched is kept.
absl::StatusOr<SyncReport> PullBundle(const std::string& bundle_dir, Store& shared,
                                      int parallel = 8);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BUNDLE_BUNDLE_SYNC_H_
