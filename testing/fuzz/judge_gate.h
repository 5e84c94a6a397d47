// A gate for the campaign's judgements: any number share it, and a timeout's
// confirmation (campaign.h, time_budget.h) passes it alone. Exclusive entry
// waits until no shared holder is left and keeps new ones out meanwhile
// (writers first, so a busy campaign cannot starve a confirmation).
//
// Tested by testing/fuzz/judge_gate_test.cc.
#ifndef REPROKIT_TESTING_FUZZ_JUDGE_GATE_H_
#define REPROKIT_TESTING_FUZZ_JUDGE_GATE_H_

#include <condition_variable>
#include <mutex>

namespace rk::fuzz {

class JudgeGate {
 public:
  void EnterShared() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !exclusive_ && waiting_ == 0; });
    ++shared_;
  }
  void LeaveShared() {
    std::lock_guard<std::mutex> lock(mu_);
    --shared_;
    cv_.notify_all();
  }
  void EnterExclusive() {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    cv_.wait(lock, [&] { return !exclusive_ && shared_ == 0; });
    --waiting_;
    exclusive_ = true;
  }
  void LeaveExclusive() {
    std::lock_guard<std::mutex> lock(mu_);
    exclusive_ = false;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int shared_ = 0;
  int waiting_ = 0;
  bool exclusive_ = false;
};

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_JUDGE_GATE_H_
