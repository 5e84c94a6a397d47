// The two search strategies the engine drives over a reduction's targets.
// Both are deterministic state machines: Next() proposes the full set of
// targets to reduce, Report() answers it. Because Clone() copies the state,
// the engine can speculate ("assume the next proposals all fail") and run
// several proposals at once while accepting results in exactly the order a
// one-at-a-time run would, so -j changes speed, never the result.
//
// - BinarySearch(n): finds the smallest interesting target in [0, n), assuming
//   interestingness is monotone in the index (n itself, "no change", is
//   interesting). ceil(log2(n + 1)) probes.
// - AggressiveFirst(n): the same, but probes target 0 first: one probe when
//   the most aggressive target works (shrinking every dim to 1 usually
//   does), at most one more than BinarySearch when it does not.
// - FirstInteresting(n): tries the targets one at a time, in order, and stops
//   at the first interesting one (at most n probes; with -j the next ones are
//   judged speculatively beside it).
// - ProbDd(n): ProbDD, probabilistic delta debugging (Wang et al., FSE
//   2021); not Zeller's ddmin, which is repro/bisect/ddmin.h. Each target
//   carries an estimated probability of being needed, starting at
//   min(1/2, 1/n) (one culprit expected); each round reduces the
//   set that maximizes expected progress, |S| * prod(1 - p_i), taking targets
//   with the lowest probability and, on ties, the earliest (later targets,
//   nearer the failure, are kept longest). A failed set raises its members'
//   probabilities by 1 / (1 - prod(1 - p_i)); a failed singleton is needed
//   (p = 1). It stops when every remaining target is needed, so the result is
//   1-minimal with respect to its targets.
//
// Tested by minifier/search_test.cc.
#ifndef REPROKIT_MINIFIER_SEARCH_H_
#define REPROKIT_MINIFIER_SEARCH_H_

#include <memory>
#include <optional>
#include <vector>

#include "minifier/reduction.h"

namespace rk::minifier {

class SearchState {
 public:
  virtual ~SearchState() = default;
  virtual std::unique_ptr<SearchState> Clone() const = 0;
  // The targets to reduce (sorted), or nullopt when the search is over.
  virtual std::optional<std::vector<int>> Next() = 0;
  // The answer for the last proposal returned by Next().
  virtual void Report(bool interesting) = 0;
};

std::unique_ptr<SearchState> MakeBinarySearch(int num_targets);
std::unique_ptr<SearchState> MakeAggressiveFirst(int num_targets);
std::unique_ptr<SearchState> MakeFirstInteresting(int num_targets);
std::unique_ptr<SearchState> MakeProbDd(int num_targets);
std::unique_ptr<SearchState> MakeSearch(SearchKind kind, int num_targets);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_SEARCH_H_
