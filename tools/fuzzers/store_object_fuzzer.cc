// Fuzz harness: the content store's object decoder (repro/store/object_format).
// Any bytes in a cas/ file must give an intact object or a DataLoss error,
// never a crash, an unbounded allocation or bytes that do not hash to the
// digest. The input is the object file; its digest is taken as the SHA-256 of
// what an intact object would decode to, so a well-formed seed decodes fully.
// Seeds: objects written by WriteObject (tools/fuzzers/make_seeds.sh).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/digest.h"
#include "base/sha256.h"
#include "repro/store/object_format.h"
#include "repro/store/store.h"
#include "tools/fuzzers/fuzz_assert.h"

namespace {

// Counts what the decoder hands out and keeps at most a bounded prefix.
class BoundedSink : public rk::repro::ByteSink {
 public:
  absl::Status Write(absl::string_view bytes) override {
    total_ += bytes.size();
    if (kept_.size() < (1 << 20)) kept_.append(bytes.data(), bytes.size());
    return absl::OkStatus();
  }
  uint64_t total() const { return total_; }
  const std::string& kept() const { return kept_; }

 private:
  uint64_t total_ = 0;
  std::string kept_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)rk::repro::DecodeObjectHeader(bytes);

  static const int fd = ::memfd_create("store-object-fuzz", MFD_CLOEXEC);
  RK_FUZZ_ASSERT(fd >= 0, "memfd_create failed");
  RK_FUZZ_ASSERT(::ftruncate(fd, 0) == 0 && ::pwrite(fd, data, size, 0) == static_cast<ssize_t>(size),
                 "cannot write the input to the memfd");
  ::lseek(fd, 0, SEEK_SET);

  // First pass with a digest that cannot match: learns the decoded bytes.
  BoundedSink first;
  rk::Digest zero;
  rk::repro::ObjectHeader header;
  absl::Status status = rk::repro::ReadObject(fd, "fuzz-object", zero, first, &header);
  RK_FUZZ_ASSERT(!status.ok(), "an object verified against the zero digest");
  RK_FUZZ_ASSERT(status.code() == absl::StatusCode::kDataLoss ||
                     status.code() == absl::StatusCode::kInvalidArgument,
                 "unexpected error kind: %s", status.ToString().c_str());
  if (first.total() != first.kept().size()) return 0;  // too large to hash here

  // Second pass with the digest of what came out: a complete, well-formed
  // object must now verify; whatever the outcome, the decoder agrees with
  // itself.
  ::lseek(fd, 0, SEEK_SET);
  BoundedSink second;
  rk::Digest digest = rk::Sha256(first.kept());
  absl::Status again = rk::repro::ReadObject(fd, "fuzz-object", digest, second, nullptr);
  if (again.ok()) {
    RK_FUZZ_ASSERT(second.kept() == first.kept(), "a verified object decoded differently");
    RK_FUZZ_ASSERT(second.total() == header.raw_size, "raw size %llu but %llu bytes decoded",
                   static_cast<unsigned long long>(header.raw_size),
                   static_cast<unsigned long long>(second.total()));
  }
  return 0;
}
