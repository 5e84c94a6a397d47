#include "repro/bisect/ddmin.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace rk::repro {
namespace {

// Splits `set` into `n` contiguous chunks of near-equal size.
std::vector<std::vector<int>> Split(const std::vector<int>& set, int n) {
  std::vector<std::vector<int>> chunks;
  size_t start = 0;
  for (int i = 0; i < n; ++i) {
    const size_t end = start + (set.size() - start) / (n - i);
    chunks.emplace_back(set.begin() + start, set.begin() + end);
    start = end;
  }
  return chunks;
}

std::vector<int> Complement(const std::vector<int>& set, const std::vector<int>& chunk) {
  std::vector<int> out;
  std::set_difference(set.begin(), set.end(), chunk.begin(), chunk.end(),
                      std::back_inserter(out));
  return out;
}

}  // namespace

absl::StatusOr<std::vector<int>> Ddmin(int n, const SubsetTest& test) {
  std::vector<int> current(n);
  std::iota(current.begin(), current.end(), 0);
  std::map<std::vector<int>, bool> memo;
  memo[current] = true;
  memo[{}] = false;
  auto run = [&](const std::vector<int>& subset) -> absl::StatusOr<bool> {
    auto it = memo.find(subset);
    if (it != memo.end()) return it->second;
    absl::StatusOr<bool> fails = test(subset);
    if (!fails.ok()) return fails.status();
    memo[subset] = *fails;
    return *fails;
  };
  int granularity = 2;
  while (current.size() >= 2) {
    const std::vector<std::vector<int>> chunks =
        Split(current, std::min<int>(granularity, current.size()));
    bool reduced = false;
    for (const std::vector<int>& chunk : chunks) {
      absl::StatusOr<bool> fails = run(chunk);
      if (!fails.ok()) return fails.status();
      if (*fails) {
        current = chunk;
        granularity = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && chunks.size() > 2) {
      for (const std::vector<int>& chunk : chunks) {
        std::vector<int> rest = Complement(current, chunk);
        absl::StatusOr<bool> fails = run(rest);
        if (!fails.ok()) return fails.status();
        if (*fails) {
          current = std::move(rest);
          granularity = std::max(granularity - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (reduced) continue;
    if (granularity >= static_cast<int>(current.size())) break;
    granularity = std::min<int>(granularity * 2, current.size());
  }
  return current;
}

}  // namespace rk::repro
