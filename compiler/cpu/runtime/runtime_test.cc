#include <atomic>
#include <cmath>

#include "compiler/cpu/runtime/runtime_support.h"
#include "gtest/gtest.h"

namespace {

std::atomic<int64_t> g_sum{0};

void AddRange(void**, int64_t begin, int64_t end, int64_t) {
  for (int64_t i = begin; i < end; ++i) g_sum += i;
}

TEST(RuntimeTest, ParallelForCoversEveryIterationOnce) {
  g_sum = 0;
  rk_parallel_for(&AddRange, nullptr, 1001, 3, 0);
  EXPECT_EQ(g_sum.load(), 1000 * 1001 / 2);
}

TEST(RuntimeTest, DoubleToIntWraps) {
  EXPECT_EQ(rk_double_to_i64_wrapped(-3.7), -3);
  EXPECT_EQ(rk_double_to_i64_wrapped(NAN), 0);
  EXPECT_EQ(rk_double_to_i64_wrapped(INFINITY), 0);
  EXPECT_EQ(rk_double_to_i64_wrapped(18446744073709551616.0 + 4096.0), 4096);
}

}  // namespace
