#include "repro/bisect/ddmin.h"

#include <algorithm>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

// Fails when every element of `culprits` is in the subset.
SubsetTest NeedsAll(std::vector<int> culprits, int* calls) {
  return [culprits, calls](absl::Span<const int> subset) -> absl::StatusOr<bool> {
    ++*calls;
    for (int c : culprits) {
      if (std::find(subset.begin(), subset.end(), c) == subset.end()) return false;
    }
    return true;
  };
}

TEST(DdminTest, FindsOneCulpritInFewTests) {
  int calls = 0;
  absl::StatusOr<std::vector<int>> result = Ddmin(16, NeedsAll({11}, &calls));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, std::vector<int>({11}));
  EXPECT_LE(calls, 12);
}

TEST(DdminTest, FindsAConjunction) {
  int calls = 0;
  absl::StatusOr<std::vector<int>> result = Ddmin(9, NeedsAll({0, 8}, &calls));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, std::vector<int>({0, 8}));
}

TEST(DdminTest, SingleElementIsAlreadyMinimal) {
  int calls = 0;
  absl::StatusOr<std::vector<int>> result = Ddmin(1, NeedsAll({0}, &calls));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, std::vector<int>({0}));
  EXPECT_EQ(calls, 0);
}

TEST(DdminTest, ResultIsOneMinimalForAnyOfTwoAlternatives) {
  // Fails with {2} or with {5, 6}: the result must fail and drop nothing more.
  SubsetTest test = [](absl::Span<const int> s) -> absl::StatusOr<bool> {
    std::set<int> set(s.begin(), s.end());
    return set.count(2) > 0 || (set.count(5) > 0 && set.count(6) > 0);
  };
  absl::StatusOr<std::vector<int>> result = Ddmin(8, test);
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(*test(*result));
  for (size_t i = 0; i < result->size(); ++i) {
    std::vector<int> smaller = *result;
    smaller.erase(smaller.begin() + i);
    EXPECT_FALSE(*test(smaller));
  }
}

TEST(DdminTest, TestErrorsStopTheSearch) {
  SubsetTest test = [](absl::Span<const int>) -> absl::StatusOr<bool> {
    return absl::InternalError("oracle died");
  };
  EXPECT_EQ(Ddmin(4, test).status().code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace rk::repro
