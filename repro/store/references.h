// Which store objects a set of bundle directories refers to: the definition
// of "referenced" that `reprokit store gc` (and any later bundle code that
// wants its blobs kept) relies on. See docs/STORE.md, "Garbage collection".
//
// Under each root, recursively, a digest is referenced when
//   - it appears as a run of exactly 64 hex characters (either case) in a
//     file named `repro.json` or ending in `.rk`; longer hex runs (e.g. a
//     SHA-512) do not count; or
//   - it is the name of a file below a `blobs/cas/` directory (any depth:
//     `blobs/cas/<64 hex>` or `blobs/cas/<2 hex>/<64 hex>`).
// A root may also be a single such file. Symlinks are not followed. A root
// that does not exist is an error: a mistyped path must not make gc delete
// everything.
//
// Tested by repro/store/references_test.cc.
#ifndef REPROKIT_REPRO_STORE_REFERENCES_H_
#define REPROKIT_REPRO_STORE_REFERENCES_H_

#include <string>

#include "absl/container/btree_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/digest.h"

namespace rk::repro {

// Adds every 64-hex run of `text` to `out`.
void AddDigestsInText(absl::string_view text, absl::btree_set<Digest>& out);

absl::StatusOr<absl::btree_set<Digest>> CollectReferencedDigests(
    absl::Span<const std::string> roots);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_REFERENCES_H_
