#include "testing/fuzz/judge_gate.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace rk::fuzz {
namespace {

using std::chrono::milliseconds;

// Shared holders overlap; the exclusive one never overlaps anyone, and gets
// in although shared holders keep coming.
TEST(JudgeGateTest, ExclusiveIsAloneAndNotStarved) {
  JudgeGate gate;
  std::atomic<int> inside{0};
  std::atomic<int> max_shared{0};
  std::atomic<bool> overlap{false};
  std::atomic<bool> stop{false};
  std::atomic<int> exclusive_done{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!stop) {
        gate.EnterShared();
        const int now = ++inside;
        int seen = max_shared.load();
        while (now > seen && !max_shared.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(milliseconds(2));
        --inside;
        gate.LeaveShared();
      }
    });
  }
  std::thread writer([&] {
    for (int i = 0; i < 5; ++i) {
      gate.EnterExclusive();
      if (inside.load() != 0) overlap = true;
      std::this_thread::sleep_for(milliseconds(3));
      if (inside.load() != 0) overlap = true;
      gate.LeaveExclusive();
      ++exclusive_done;
      std::this_thread::sleep_for(milliseconds(5));
    }
  });
  writer.join();
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(exclusive_done.load(), 5);
  EXPECT_FALSE(overlap.load());
  EXPECT_GT(max_shared.load(), 1);
}

}  // namespace
}  // namespace rk::fuzz
