// The content store interface: immutable blobs addressed by the SHA-256 of
// their raw bytes (docs/STORE.md).
//
// A backend guarantees: Put is idempotent and atomic (a reader sees a whole
// object or none); Get returns bytes whose digest was checked, or DataLoss
// naming the digest and where the object lives; objects are never modified in
// place. Streams exist so a multi-GiB tensor never needs two whole copies in
// memory. The local backend is LocalStore (local_store.h); a Bazel HTTP remote
// cache backend (`GET/PUT /cas/<sha256>`) fits the same calls.
//
// The generic helpers (PutFile, GetToFile, List) are tested through
// repro/store/local_store_test.cc.
#ifndef REPROKIT_REPRO_STORE_STORE_H_
#define REPROKIT_REPRO_STORE_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/digest.h"

namespace rk::repro {

// Where blob bytes come from in a streaming Put.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `size` bytes into `buffer`; returns 0 only at the end.
  virtual absl::StatusOr<size_t> Read(char* buffer, size_t size) = 0;
  // The total size, from the start, if known in advance (lets a backend size
  // its work; a wrong hint makes the Put fail).
  virtual std::optional<uint64_t> SizeHint() const { return std::nullopt; }
};

// Where blob bytes go in a streaming Get.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual absl::Status Write(absl::string_view bytes) = 0;
};

// Reads a file descriptor (not owned) or a string.
class FdSource : public ByteSource {
 public:
  explicit FdSource(int fd, std::optional<uint64_t> size = std::nullopt) : fd_(fd), size_(size) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override;
  std::optional<uint64_t> SizeHint() const override { return size_; }

 private:
  int fd_;
  std::optional<uint64_t> size_;
};

class StringSource : public ByteSource {
 public:
  explicit StringSource(absl::string_view bytes) : bytes_(bytes), size_(bytes.size()) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override;
  std::optional<uint64_t> SizeHint() const override { return size_; }

 private:
  absl::string_view bytes_;  // what is left to read
  uint64_t size_;
};

class StringSink : public ByteSink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  absl::Status Write(absl::string_view bytes) override {
    out_->append(bytes.data(), bytes.size());
    return absl::OkStatus();
  }

 private:
  std::string* out_;
};

struct PutOptions {
  // Byte-shuffle elements of this many bytes before compressing (4 for f32,
  // 2 for f16/bf16, 8 for f64); 0 or 1 stores bytes as they are. A hint for
  // the storage format only: the digest is always of the raw bytes.
  int element_size = 0;
};

struct ObjectInfo {
  Digest digest;
  uint64_t raw_size = 0;     // bytes Get returns
  uint64_t stored_size = 0;  // bytes the backend keeps (header + compressed)
};

class Store {
 public:
  virtual ~Store() = default;

  // Stores `bytes`; if an object with their digest exists, costs only the hash.
  virtual absl::StatusOr<Digest> Put(absl::string_view bytes, const PutOptions& options = {}) = 0;
  // Streams a blob in; the source is read once.
  virtual absl::StatusOr<Digest> PutStream(ByteSource& source, const PutOptions& options = {}) = 0;
  // Stores a file's contents. The default hashes the file first and skips
  // the write when the object exists, then streams it in.
  virtual absl::StatusOr<Digest> PutFile(const std::string& path, const PutOptions& options = {});

  // The verified bytes of an object; NotFound if absent, DataLoss if corrupt.
  virtual absl::StatusOr<std::string> Get(const Digest& digest) = 0;
  // Streams an object out. The digest is checked at the end, so on a non-OK
  // return the sink may have received bytes that must be discarded.
  virtual absl::Status GetStream(const Digest& digest, ByteSink& sink) = 0;
  // Writes an object to `path` atomically: the file appears only once the
  // bytes are verified.
  virtual absl::Status GetToFile(const Digest& digest, const std::string& path);

  // Presence only; does not read or verify the object.
  virtual absl::StatusOr<bool> Contains(const Digest& digest) = 0;
  virtual absl::StatusOr<ObjectInfo> Stat(const Digest& digest) = 0;
  // Calls `visit` for every object, in digest order; stops at the first error.
  virtual absl::Status ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) = 0;
  // Removing an absent object is NotFound.
  virtual absl::Status Remove(const Digest& digest) = 0;

  // Every digest, sorted.
  absl::StatusOr<std::vector<Digest>> List();
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_STORE_H_
