#include "minifier/search.h"

#include <algorithm>
#include <numeric>

namespace rk::minifier {
namespace {

class BinarySearch : public SearchState {
 public:
  BinarySearch(int n, bool probe_first) : lo_(0), hi_(n), probe_first_(probe_first && n > 1) {}
  std::unique_ptr<SearchState> Clone() const override {
    return std::make_unique<BinarySearch>(*this);
  }
  std::optional<std::vector<int>> Next() override {
    if (lo_ >= hi_) return std::nullopt;
    mid_ = probe_first_ ? lo_ : lo_ + (hi_ - lo_) / 2;
    probe_first_ = false;
    return std::vector<int>{mid_};
  }
  void Report(bool interesting) override {
    if (interesting) {
      hi_ = mid_;
    } else {
      lo_ = mid_ + 1;
    }
  }

 private:
  int lo_, hi_, mid_ = 0;
  bool probe_first_;
};

class FirstInteresting : public SearchState {
 public:
  explicit FirstInteresting(int n) : n_(n) {}
  std::unique_ptr<SearchState> Clone() const override {
    return std::make_unique<FirstInteresting>(*this);
  }
  std::optional<std::vector<int>> Next() override {
    if (done_ || next_ >= n_) return std::nullopt;
    return std::vector<int>{next_++};
  }
  void Report(bool interesting) override { done_ = interesting; }

 private:
  int n_;
  int next_ = 0;
  bool done_ = false;
};

class ProbDd : public SearchState {
 public:
  explicit ProbDd(int n)
      : probability_(n, std::min(0.5, n > 0 ? 1.0 / n : 0.5)), removed_(n, false) {}
  std::unique_ptr<SearchState> Clone() const override { return std::make_unique<ProbDd>(*this); }

  std::optional<std::vector<int>> Next() override {
    std::vector<int> open;
    for (int i = 0; i < static_cast<int>(removed_.size()); ++i) {
      if (!removed_[i] && probability_[i] < kNeeded) open.push_back(i);
    }
    if (open.empty()) return std::nullopt;
    std::stable_sort(open.begin(), open.end(),
                     [&](int a, int b) { return probability_[a] < probability_[b]; });
    double keep_all = 1.0, best_gain = -1.0;
    size_t best_size = 0;
    for (size_t s = 1; s <= open.size(); ++s) {
      keep_all *= 1.0 - probability_[open[s - 1]];
      double gain = static_cast<double>(s) * keep_all;
      if (gain > best_gain + 1e-12) {
        best_gain = gain;
        best_size = s;
      }
    }
    trial_.assign(open.begin(), open.begin() + best_size);
    std::vector<int> chosen = trial_;
    for (int i = 0; i < static_cast<int>(removed_.size()); ++i) {
      if (removed_[i]) chosen.push_back(i);
    }
    std::sort(chosen.begin(), chosen.end());
    return chosen;
  }

  void Report(bool interesting) override {
    if (interesting) {
      for (int i : trial_) removed_[i] = true;
      return;
    }
    if (trial_.size() == 1) {
      probability_[trial_[0]] = 1.0;
      return;
    }
    double none_needed = 1.0;
    for (int i : trial_) none_needed *= 1.0 - probability_[i];
    double factor = 1.0 / std::max(1e-12, 1.0 - none_needed);
    for (int i : trial_) probability_[i] = std::min(1.0, probability_[i] * factor);
  }

 private:
  static constexpr double kNeeded = 0.999;
  std::vector<double> probability_;
  std::vector<bool> removed_;
  std::vector<int> trial_;
};

}  // namespace

std::unique_ptr<SearchState> MakeBinarySearch(int num_targets) {
  return std::make_unique<BinarySearch>(num_targets, false);
}

std::unique_ptr<SearchState> MakeAggressiveFirst(int num_targets) {
  return std::make_unique<BinarySearch>(num_targets, true);
}

std::unique_ptr<SearchState> MakeFirstInteresting(int num_targets) {
  return std::make_unique<FirstInteresting>(num_targets);
}

std::unique_ptr<SearchState> MakeProbDd(int num_targets) {
  return std::make_unique<ProbDd>(num_targets);
}

std::unique_ptr<SearchState> MakeSearch(SearchKind kind, int num_targets) {
  switch (kind) {
    case SearchKind::kBinarySearch: return MakeBinarySearch(num_targets);
    case SearchKind::kAggressiveFirst: return MakeAggressiveFirst(num_targets);
    case SearchKind::kFirstInteresting: return MakeFirstInteresting(num_targets);
    case SearchKind::kProbDd: break;
  }
  return MakeProbDd(num_targets);
}

}  // namespace rk::minifier
