// A throwaway content store for one minification run: the recorded
// intermediates (recorded_values.h) of the run live here, not in the output
// bundle, whose blobs/ must hold only the inputs it needs.
//
// Create() makes a fresh directory `reprokit-values-XXXXXX` under
// $TMPDIR (else /tmp) and opens a LocalStore on it without fsync (nothing
// in it needs to survive a crash); the destructor removes the directory.
//
// Tested through minifier/engine_test.cc and minifier/recorded_values_test.cc.
#ifndef REPROKIT_MINIFIER_SCRATCH_STORE_H_
#define REPROKIT_MINIFIER_SCRATCH_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "repro/store/local_store.h"

namespace rk::minifier {

class ScratchStore {
 public:
  static absl::StatusOr<std::unique_ptr<ScratchStore>> Create();
  ~ScratchStore();
  ScratchStore(const ScratchStore&) = delete;
  ScratchStore& operator=(const ScratchStore&) = delete;

  repro::LocalStore& store() { return *store_; }
  const std::string& root() const { return root_; }

 private:
  ScratchStore(std::string root, std::unique_ptr<repro::LocalStore> store)
      : root_(std::move(root)), store_(std::move(store)) {}

  std::string root_;
  std::unique_ptr<repro::LocalStore> store_;
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_SCRATCH_STORE_H_
