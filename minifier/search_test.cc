#include "minifier/search.h"

#include <algorithm>
#include <set>

#include "gtest/gtest.h"

namespace rk::minifier {
namespace {

// Runs `state` against "interesting iff every target in `needed` survives".
std::vector<int> Survivors(SearchState& state, int n, const std::set<int>& needed, int* probes) {
  std::vector<int> accepted;
  while (std::optional<std::vector<int>> chosen = state.Next()) {
    ++*probes;
    bool ok = std::none_of(chosen->begin(), chosen->end(),
                           [&](int t) { return needed.count(t) > 0; });
    state.Report(ok);
    if (ok) accepted = *chosen;
  }
  std::vector<int> survivors;
  for (int i = 0; i < n; ++i) {
    if (std::find(accepted.begin(), accepted.end(), i) == accepted.end()) survivors.push_back(i);
  }
  return survivors;
}

TEST(BinarySearch, FindsTheSmallestInterestingTarget) {
  for (int boundary : {0, 1, 7, 99, 100}) {
    auto state = MakeBinarySearch(100);
    int probes = 0, smallest = 100;
    while (std::optional<std::vector<int>> chosen = state->Next()) {
      ++probes;
      bool ok = (*chosen)[0] >= boundary;
      if (ok) smallest = std::min(smallest, (*chosen)[0]);
      state->Report(ok);
    }
    EXPECT_EQ(smallest, boundary);
    EXPECT_LE(probes, 7);
  }
}

TEST(FirstInteresting, TriesInOrderAndStopsAtTheFirstInterestingTarget) {
  for (int interesting : {0, 3, 7, 8}) {  // 8: none is
    auto state = MakeFirstInteresting(8);
    std::vector<int> order;
    while (std::optional<std::vector<int>> chosen = state->Next()) {
      ASSERT_EQ(chosen->size(), 1u);
      order.push_back((*chosen)[0]);
      state->Report((*chosen)[0] == interesting);
    }
    ASSERT_EQ(static_cast<int>(order.size()), std::min(interesting + 1, 8));
    for (int i = 0; i < static_cast<int>(order.size()); ++i) EXPECT_EQ(order[i], i);
  }
}

TEST(AggressiveFirst, OneProbeWhenTargetZeroWorksElseABinarySearch) {
  for (int boundary : {0, 1, 5, 8}) {
    auto state = MakeAggressiveFirst(8);
    int probes = 0, smallest = 8;
    std::vector<int> order;
    while (std::optional<std::vector<int>> chosen = state->Next()) {
      ++probes;
      order.push_back((*chosen)[0]);
      bool ok = (*chosen)[0] >= boundary;
      if (ok) smallest = std::min(smallest, (*chosen)[0]);
      state->Report(ok);
    }
    EXPECT_EQ(order[0], 0);
    EXPECT_EQ(smallest, boundary);
    if (boundary == 0) {
      EXPECT_EQ(probes, 1);
    }
    EXPECT_LE(probes, 1 + 3);
  }
}

TEST(ProbDd, KeepsExactlyTheNeededTargets) {
  for (std::set<int> needed : {std::set<int>{63}, std::set<int>{0, 31}, std::set<int>{5, 6, 40}}) {
    auto state = MakeProbDd(64);
    int probes = 0;
    std::vector<int> survivors = Survivors(*state, 64, needed, &probes);
    EXPECT_EQ(std::set<int>(survivors.begin(), survivors.end()), needed);
    EXPECT_LE(probes, 2 * static_cast<int>(needed.size()) * 6 + 20);
  }
}

TEST(ProbDd, SingleNeededLastTargetTakesOneProbePlusChecks) {
  auto state = MakeProbDd(40);
  int probes = 0;
  Survivors(*state, 40, {39}, &probes);
  EXPECT_LE(probes, 3);
}

TEST(ProbDd, CloneReplaysTheSameProposals) {
  auto state = MakeProbDd(10);
  auto copy = state->Clone();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(state->Next(), copy->Next());
    state->Report(false);
    copy->Report(false);
  }
}

}  // namespace
}  // namespace rk::minifier
