// CheckpointWriter: writes the minimizer's best candidate so far on a thread
// of its own, so that a step's checkpoint (a whole bundle directory, every
// blob and file synced to disk: 10-100 ms for a candidate of many cut
// inputs) does not hold up the search.
//
// Only the newest checkpoint matters: one submitted while another is being
// written replaces the one still waiting (it is never written). Flush waits
// until the newest submitted one is on disk and returns the first error any
// write returned; call it before writing the final bundle to the same place.
// The destructor flushes. A crash of the minimizer may therefore leave a
// checkpoint a few steps behind the search (never a torn one: each bundle is
// published atomically by repro/bundle).
//
// Tested by minifier/checkpoint_writer_test.cc.
#ifndef REPROKIT_MINIFIER_CHECKPOINT_WRITER_H_
#define REPROKIT_MINIFIER_CHECKPOINT_WRITER_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/status/status.h"
#include "minifier/candidate.h"
#include "minifier/stats.h"

namespace rk::minifier {

class CheckpointWriter {
 public:
  using WriteFn = std::function<absl::Status(const Candidate&, const MinifyStats&)>;

  // `write` runs on the writer's thread, one call at a time.
  explicit CheckpointWriter(WriteFn write);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Queues `best` (copied: a candidate's tensors share their bytes).
  void Submit(const Candidate& best, const MinifyStats& stats);
  // Waits for the newest submitted checkpoint; the first write error, if any.
  absl::Status Flush();
  // How many checkpoints were written (the others were replaced unwritten).
  int written() const;

 private:
  struct Pending {
    Candidate best;
    MinifyStats stats;
  };
  void Loop();

  WriteFn write_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Pending> pending_;
  bool writing_ = false;
  bool closing_ = false;
  int written_ = 0;
  absl::Status first_error_;
  std::thread thread_;  // last: starts after the members above exist
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_CHECKPOINT_WRITER_H_
