#include "minifier/checkpoint_writer.h"

#include <atomic>
#include <future>
#include <vector>

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {

// Writes block until released; what they wrote is kept in order.
struct BlockingWrites {
  std::mutex mutex;
  std::vector<int64_t> written;  // the stats' oracle_calls of each write
  std::promise<void> first_started;
  std::shared_future<void> release;
  std::atomic<int> started{0};
};

TEST(CheckpointWriter, WritesTheNewestAndSkipsReplacedOnes) {
  BlockingWrites w;
  std::promise<void> release;
  w.release = release.get_future().share();
  CheckpointWriter writer([&](const Candidate&, const MinifyStats& stats) {
    if (w.started++ == 0) {
      w.first_started.set_value();
      w.release.wait();
    }
    std::lock_guard<std::mutex> lock(w.mutex);
    w.written.push_back(stats.oracle_calls);
    return absl::OkStatus();
  });
  Candidate c = RandomDag({.seed = 1, .nodes = 10});
  MinifyStats stats;
  stats.oracle_calls = 1;
  writer.Submit(c, stats);
  w.first_started.get_future().wait();
  // While the first is being written, three more arrive: only the last counts.
  for (int64_t calls : {2, 3, 4}) {
    stats.oracle_calls = calls;
    writer.Submit(c, stats);
  }
  release.set_value();
  EXPECT_TRUE(writer.Flush().ok());
  EXPECT_EQ(w.written, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(writer.written(), 2);
}

TEST(CheckpointWriter, FlushReturnsTheFirstError) {
  int calls = 0;
  CheckpointWriter writer([&](const Candidate&, const MinifyStats&) {
    ++calls;
    return calls == 1 ? absl::InternalError("disk full") : absl::OkStatus();
  });
  Candidate c = RandomDag({.seed = 2, .nodes = 10});
  writer.Submit(c, MinifyStats());
  EXPECT_EQ(writer.Flush().message(), "disk full");
  writer.Submit(c, MinifyStats());
  EXPECT_EQ(writer.Flush().message(), "disk full");
  EXPECT_EQ(calls, 2);
}

TEST(CheckpointWriter, DestructorWritesWhatWasSubmitted) {
  int calls = 0;
  {
    CheckpointWriter writer([&](const Candidate&, const MinifyStats&) {
      ++calls;
      return absl::OkStatus();
    });
    writer.Submit(RandomDag({.seed = 3, .nodes = 10}), MinifyStats());
  }
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace rk::minifier
