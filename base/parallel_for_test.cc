#include "base/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace rk {
namespace {

TEST(ParallelForTest, RunsEveryIndexOnce) {
  for (int threads : {0, 1, 2, 7, 64}) {
    SCOPED_TRACE(threads);
    std::vector<std::atomic<int>> runs(100);
    ParallelFor(100, threads, [&](int i) { runs[i].fetch_add(1); });
    for (int i = 0; i < 100; ++i) EXPECT_EQ(runs[i].load(), 1) << i;
  }
}

TEST(ParallelForTest, OneThreadRunsInOrderOnTheCaller) {
  std::vector<int> order;
  std::set<std::thread::id> ids;
  ParallelFor(5, 1, [&](int i) {
    order.push_back(i);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(ids, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ParallelForTest, UsesSeveralThreadsWhenAsked) {
  // Each task waits until two have started, which only another thread can do.
  std::atomic<int> started{0};
  std::mutex mu;
  std::set<std::thread::id> ids;
  ParallelFor(2, 2, [&](int) {
    started.fetch_add(1);
    while (started.load() < 2) std::this_thread::yield();
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ParallelForTest, NothingToDo) {
  int calls = 0;
  ParallelFor(0, 4, [&](int) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(CompileThreads(0), 0);
  EXPECT_EQ(CompileThreads(1), 1);
  EXPECT_LE(CompileThreads(100), 8);
  EXPECT_GE(CompileThreads(100), 1);
}

TEST(ParallelForTest, CompileThreadsHonourTheProcessLimit) {
  SetCompileThreadLimit(1);
  EXPECT_EQ(CompileThreads(100), 1);
  SetCompileThreadLimit(0);
  EXPECT_EQ(CompileThreads(100),
            std::min(8, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))));
}

}  // namespace
}  // namespace rk
