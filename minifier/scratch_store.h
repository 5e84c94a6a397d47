// A throwaway content store for one minification run: the recorded
// intermediates (recorded_values.h) that do not fit the cache spill here,
// not into the output bundle, whose blobs/ must hold only the inputs it
// needs.
//
// The directory, `reprokit-values-<pid>-XXXXXX` under $TMPDIR (else /tmp), is
// made on first use, so a run that never spills touches no disk; it holds a
// LocalStore opened without fsync (nothing in it needs to survive a crash)
// and is removed by the destructor. A run killed with SIGKILL cannot remove
// it; the next scratch store made under the same directory removes those
// whose process is gone (base/leftovers.h).
//
// Tested through minifier/engine_test.cc and minifier/recorded_values_test.cc.
#ifndef REPROKIT_MINIFIER_SCRATCH_STORE_H_
#define REPROKIT_MINIFIER_SCRATCH_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "repro/store/local_store.h"
#include "repro/store/store.h"

namespace rk::minifier {

class ScratchStore : public repro::Store {
 public:
  ScratchStore() = default;
  ~ScratchStore() override;
  ScratchStore(const ScratchStore&) = delete;
  ScratchStore& operator=(const ScratchStore&) = delete;

  // The underlying store, making the directory if it does not exist yet.
  absl::StatusOr<repro::LocalStore*> Local();
  // Empty until the directory exists.
  std::string root() const;

  absl::StatusOr<Digest> Put(absl::string_view bytes,
                                    const repro::PutOptions& options = {}) override;
  absl::StatusOr<Digest> PutStream(repro::ByteSource& source,
                                          const repro::PutOptions& options = {}) override;
  absl::StatusOr<std::string> Get(const Digest& digest) override;
  absl::Status GetStream(const Digest& digest, repro::ByteSink& sink) override;
  absl::StatusOr<bool> Contains(const Digest& digest) override;
  absl::StatusOr<repro::ObjectInfo> Stat(const Digest& digest) override;
  absl::Status ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) override;
  absl::Status Remove(const Digest& digest) override;

 private:
  mutable absl::Mutex mu_;
  std::string root_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<repro::LocalStore> store_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_SCRATCH_STORE_H_
