// Packing a bundle into one file to attach to a bug report, and back.
//
// The file is a POSIX ustar archive compressed as one zstd frame (with
// content checksum): `tar --zstd -xf bug.tar.zst` opens it too, but reprokit
// needs neither tar nor zstd binaries. Archives are deterministic: entries in
// path order under one top-level directory (the bundle's name), mtime 0,
// uid/gid 0, modes 0755 / 0644, so packing the same bundle twice gives the
// same bytes.
//
// Unpacking trusts nothing: every header checksum and size is checked, only
// regular files and directories are accepted (no links, devices or pax
// records), paths must be relative, inside the top-level directory, without
// `..`, `.` or empty components, sizes and entry counts are bounded, and the
// result must load as a bundle. It extracts into a temporary directory beside
// the destination and renames it into place; it refuses to overwrite anything.
//
// Tested by repro/bundle/pack_test.cc.
#ifndef REPROKIT_REPRO_BUNDLE_PACK_H_
#define REPROKIT_REPRO_BUNDLE_PACK_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace rk::repro {

struct PackStats {
  int64_t files = 0;
  int64_t directories = 0;
  uint64_t file_bytes = 0;     // bytes of file contents
  uint64_t archive_bytes = 0;  // size of the .tar.zst
};

struct UnpackLimits {
  // File contents. A small archive can expand to gigabytes; `reprokit unpack
  // --max-bytes` raises this for bundles that really are that large.
  uint64_t max_total_bytes = uint64_t{1} << 30;
  int64_t max_entries = 1000000;
};

// Packs the bundle in `bundle_dir` (which must load) into `archive_path`,
// written atomically. Refuses symlinks and special files inside the bundle.
absl::StatusOr<PackStats> PackBundle(const std::string& bundle_dir,
                                     const std::string& archive_path);

// Extracts `archive_path` into `out_dir`, which must not exist (or be an
// empty directory). DataLoss for a corrupt or truncated archive,
// InvalidArgument for unsafe entries, AlreadyExists for an existing target.
absl::StatusOr<PackStats> UnpackBundle(const std::string& archive_path,
                                       const std::string& out_dir,
                                       const UnpackLimits& limits = {});

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BUNDLE_PACK_H_
