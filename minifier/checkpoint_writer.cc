#include "minifier/checkpoint_writer.h"

#include <utility>

namespace rk::minifier {

CheckpointWriter::CheckpointWriter(WriteFn write)
    : write_(std::move(write)), thread_([this] { Loop(); }) {}

CheckpointWriter::~CheckpointWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void CheckpointWriter::Submit(const Candidate& best, const MinifyStats& stats) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = Pending{best, stats};
  }
  changed_.notify_all();
}

absl::Status CheckpointWriter::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !pending_.has_value() && !writing_; });
  return first_error_;
}

int CheckpointWriter::written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return written_;
}

void CheckpointWriter::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    // What was submitted is written before the thread ends.
    changed_.wait(lock, [this] { return pending_.has_value() || closing_; });
    if (!pending_.has_value()) return;
    Pending next = *std::move(pending_);
    pending_.reset();
    writing_ = true;
    lock.unlock();
    absl::Status status = write_(next.best, next.stats);
    lock.lock();
    writing_ = false;
    ++written_;
    if (!status.ok() && first_error_.ok()) first_error_ = status;
    changed_.notify_all();
  }
}

}  // namespace rk::minifier
