// How the engine judges (engine_state.h): judgements started on threads and
// recorded in the memo, and the speculation that follows a plan's search
// ahead of its replay under assumed answers, with the lookahead into the next
// reduction. The schedule that drives them is engine.cc.
#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <utility>

#include "minifier/candidate.h"
#include "minifier/engine_state.h"
#include "minifier/reduction.h"
#include "minifier/rewrite.h"
#include "minifier/search.h"

namespace rk::minifier::engine_internal {

void Engine::Launch(const Prepared& p, ReductionStats& rs) {
  ++stats_.oracle_calls;
  ++rs.oracle_calls;
  // A copy: Accept may move the proposal's candidate while it is judged.
  auto candidate = std::make_shared<const Candidate>(p.candidate);
  Interestingness* judge = &interestingness_;
  // With one job the only judgement started is the one the replay needs
  // next: run it on the spot, on this thread.
  const std::launch policy = options_.jobs > 1 ? std::launch::async : std::launch::deferred;
  in_flight_[p.key] =
      std::async(policy, [judge, candidate] { return judge->Judge(*candidate); }).share();
}

void Engine::Record(const std::string& key,
                    const absl::StatusOr<InterestingnessResult>& result) {
  if (!result.ok()) {
    ++stats_.invalid_candidates;
    memo_[key] = MemoEntry{};
    return;
  }
  if (result->drift) ++stats_.rejected_drifts;
  memo_[key] = MemoEntry{*result};
}

void Engine::Harvest() {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    if (it->second.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      ++it;
      continue;
    }
    Record(it->first, it->second.get());
    in_flight_.erase(it++);
  }
}

void Engine::Await(Prepared& p) {
  if (auto it = in_flight_.find(p.key); it != in_flight_.end()) {
    Record(p.key, it->second.get());
    in_flight_.erase(it);
  }
  p.interesting = memo_[p.key].result.interesting;
}

void Engine::SettleInFlight() {
  for (auto& [key, result] : in_flight_) Record(key, result.get());
  in_flight_.clear();
}

bool Engine::RunPlan(const std::string& name, const ReductionPlan& plan,
                     std::unique_ptr<SearchState> state, ReductionStats& rs,
                     const ReductionInfo* next) {
  bool progress = false;
  const int jobs = std::max(1, options_.jobs);
  // Speculation follows the search on a clone (the chain) ahead of the
  // replay. A proposal whose answer is already known (memo, invalid, not
  // smaller, cannot match) is answered with it and takes no worker; one to
  // judge is answered with a guess: the answer the proposal before it got (a
  // search that keeps succeeding, like cut_head or truncate_tail closing in
  // on the culprit, then wastes nothing). Each proposal is prepared against
  // the score the candidate would have under the answers assumed before it,
  // exactly as -j 1 would prepare it once those answers are real. The chain
  // grows whenever a worker is free (at most `jobs` judgements ahead of the
  // replay), also while the replay waits, so a worker freed by a judgement
  // of an abandoned branch is used at once. The replay consumes the chain in
  // order, accepting every interesting proposal, until an answer differs
  // from the one assumed: the chain after it was made for another branch
  // and starts again from the replay's state; the answers already asked for
  // only land in the memo.
  Chain chain;
  bool guess = plan.first_guess_interesting;
  chain.Restart(*state, current_score_, guess);
  while (!ShouldStop()) {
    // A start that does not fail ends the run as soon as that is known.
    if (start_judgement_.has_value() &&
        start_judgement_->wait_for(std::chrono::seconds(0)) == std::future_status::ready &&
        !StartFails()) {
      break;
    }
    Harvest();
    Extend(plan, chain, rs);
    if (!fatal_.ok() || chain.proposals.empty()) break;
    if (next != nullptr && chain.done && !chain.looked_ahead && chain.pending < jobs) {
      chain.looked_ahead = true;
      Prelaunch(*next, chain.assumed_final != nullptr ? *chain.assumed_final : current_);
    }
    Prepared& p = chain.proposals.front();
    if (p.state == Prepared::State::kToJudge && !Answered(p.key)) {
      // A worker freed meanwhile extends the chain; otherwise nothing but
      // this answer can move the search on.
      const bool could_extend = !chain.done && chain.pending < jobs;
      WaitForAnswer(p.key, could_extend);
      continue;
    }
    if (p.state == Prepared::State::kToJudge) {
      Await(p);
      --chain.pending;
    }
    Consume(p);
    state->Next();
    state->Report(p.interesting);
    guess = p.interesting;
    const bool mismatch = chain.assumed.front() != p.interesting;
    if (p.interesting) {
      ++rs.accepted;
      Accept(p, name);
      progress = true;
    }
    chain.proposals.pop_front();
    chain.assumed.pop_front();
    if (mismatch) {
      chain.Restart(*state, current_score_, guess);
      Report(name, false);
    }
  }
  Report(name, false);
  return progress;
}

void Engine::Chain::Restart(const SearchState& from, const Score& score_now, bool guess) {
  state = from.Clone();
  score = score_now;
  answer = guess;
  proposals.clear();
  assumed.clear();
  pending = 0;
  done = false;
  assumed_final.reset();
  looked_ahead = false;
}

void Engine::Extend(const ReductionPlan& plan, Chain& chain, ReductionStats& rs) {
  const int jobs = std::max(1, options_.jobs);
  while (!chain.done && chain.pending < jobs) {
    const int busy =
        static_cast<int>(in_flight_.size()) + (start_judgement_.has_value() ? 1 : 0);
    // Judgements of abandoned branches (or the start's) hold workers; with
    // nothing of its own to wait for, the chain still asks for one.
    if (busy >= jobs && chain.pending > 0) return;
    if (chain.pending > 0 && !MaySpeculate()) return;
    std::optional<std::vector<int>> next = chain.state->Next();
    if (!next.has_value()) {
      chain.done = true;
      return;
    }
    Prepared p = Prepare(plan, *next, chain.score);
    if (!fatal_.ok()) return;
    ++rs.candidates;
    if (p.state == Prepared::State::kToJudge) {
      if (!in_flight_.contains(p.key) && !memo_.contains(p.key)) Launch(p, rs);
      ++chain.pending;
    } else {
      chain.answer = p.interesting;
    }
    if (chain.answer) {
      chain.score = ComputeScore(p.candidate);
      chain.assumed_final = std::make_shared<const Candidate>(p.candidate);
    }
    chain.state->Report(chain.answer);
    chain.assumed.push_back(chain.answer);
    chain.proposals.push_back(std::move(p));
  }
}

void Engine::Prelaunch(const ReductionInfo& next, const Candidate& assumed) {
  const int busy = static_cast<int>(in_flight_.size()) + (start_judgement_.has_value() ? 1 : 0);
  if (busy >= std::max(1, options_.jobs) || !MaySpeculate()) return;
  std::string name(next.name);
  if (auto settled = settled_.find(name);
      settled != settled_.end() && settled->second == CandidateKey(assumed)) {
    return;
  }
  ReductionPlan plan = next.plan(ReductionInput{assumed, nullptr});
  std::unique_ptr<SearchState> search = MakeSearch(next.search, plan.num_targets);
  Score score = ComputeScore(assumed);
  // Through proposals answered without a call, to the first one to judge.
  constexpr int kMaxKnown = 64;
  for (int i = 0; i < kMaxKnown; ++i) {
    std::optional<std::vector<int>> proposal = search->Next();
    if (!proposal.has_value()) return;
    Prepared p = Prepare(plan, *proposal, score, /*count=*/false);
    if (!fatal_.ok()) return;
    if (p.state == Prepared::State::kToJudge) {
      if (!in_flight_.contains(p.key)) Launch(p, stats_.For(name));
      if (lookahead_values_) {
        DropPrefetch();
        auto candidate = std::make_shared<const Candidate>(p.candidate);
        const bool fp64 = options_.fp64_values;
        prefetched_ = PrefetchedValues{
            p.key, std::async(std::launch::async, [candidate, fp64] {
                     return RecordValues(*candidate, fp64);
                   }).share()};
      }
      return;
    }
    if (p.interesting) score = ComputeScore(p.candidate);
    search->Report(p.interesting);
  }
}

bool Engine::MaySpeculate() const {
  // Calls issued stay within twice the calls used (what -j 1 issues) plus
  // one round of workers: a search whose guesses keep failing (the bits of
  // a binary search over random cut points) is not followed far ahead.
  return stats_.oracle_calls + 1 <= 2 * stats_.oracle_calls_used + std::max(1, options_.jobs);
}

bool Engine::Answered(const std::string& key) const {
  auto it = in_flight_.find(key);
  // A deferred judgement (-j 1) runs when its answer is taken.
  return it == in_flight_.end() ||
         it->second.wait_for(std::chrono::seconds(0)) != std::future_status::timeout;
}

void Engine::WaitForAnswer(const std::string& key, bool poll) {
  auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return;
  if (poll) {
    it->second.wait_for(std::chrono::milliseconds(1));
  } else {
    it->second.wait();
  }
}

}  // namespace rk::minifier::engine_internal
