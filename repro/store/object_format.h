// The on-disk form of one stored object (docs/STORE.md): a 16-byte header
// followed by one zstd frame of the (optionally byte-shuffled) raw bytes.
//
//   offset 0  "RKCS"      magic
//          4  version     1
//          5  codec       1 = zstd
//          6  flags       bit 0: byte-shuffled
//          7  elem size   shuffle element size in bytes (0 when not shuffled)
//          8  raw size    u64 little-endian, bytes after decompression
//
// WriteObject streams a source through hashing, shuffling and compression
// into a file descriptor; ReadObject streams an object back out, checking the
// header, the frame, the raw size and the SHA-256, and returns DataLoss
// naming the digest and the path on any mismatch. Both hold only fixed-size
// chunk buffers, never the whole blob.
//
// Tested by repro/store/object_format_test.cc.
#ifndef REPROKIT_REPRO_STORE_OBJECT_FORMAT_H_
#define REPROKIT_REPRO_STORE_OBJECT_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/digest.h"
#include "repro/store/store.h"

namespace rk::repro {

inline constexpr size_t kObjectHeaderBytes = 16;
inline constexpr uint8_t kObjectFormatVersion = 1;
inline constexpr uint8_t kCodecZstd = 1;
inline constexpr uint8_t kFlagShuffled = 1;

struct ObjectHeader {
  uint8_t version = kObjectFormatVersion;
  uint8_t codec = kCodecZstd;
  uint8_t flags = 0;
  uint8_t element_size = 0;
  uint64_t raw_size = 0;

  bool shuffled() const { return (flags & kFlagShuffled) != 0; }
};

std::string EncodeObjectHeader(const ObjectHeader& header);
// DataLoss (without path; callers add it) for a short, foreign or newer header.
absl::StatusOr<ObjectHeader> DecodeObjectHeader(absl::string_view bytes);

struct CompressionOptions {
  int level = 3;
  // zstd worker threads for blobs of at least multithread_min_bytes.
  int workers = 2;
  uint64_t multithread_min_bytes = 1 << 20;
};

// Whether the linked zstd accepts worker threads (ZSTD_c_nbWorkers). A zstd
// built without ZSTD_MULTITHREAD rejects them; the store then compresses on
// the calling thread and still produces the same format.
bool ZstdHasWorkers();

struct WrittenObject {
  Digest digest;          // of the raw bytes, when hashing was asked for
  uint64_t raw_size = 0;
  uint64_t stored_size = 0;
};

// Writes header + frame for everything `source` yields to `fd` (a regular
// file positioned at 0; `path` is for messages). Hashes the raw bytes unless
// `hash` is false (the caller already knows the digest). Shuffles when
// element_size > 1.
absl::StatusOr<WrittenObject> WriteObject(ByteSource& source, int fd, const std::string& path,
                                          int element_size, const CompressionOptions& options,
                                          bool hash = true);

// Streams the object in `fd` to `sink` and verifies it is `expected`.
// Returns the header through `header` when not null.
absl::Status ReadObject(int fd, const std::string& path, const Digest& expected, ByteSink& sink,
                        ObjectHeader* header = nullptr);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_OBJECT_FORMAT_H_
