// Stopwatch: milliseconds between laps on the steady clock, for the
// per-phase compile timings (PhaseTimings, `--dump DIR`/timings.json).
//
// Header-only; exercised by compiler/driver/compile_test.cc's timings checks.
#ifndef REPROKIT_BASE_STOPWATCH_H_
#define REPROKIT_BASE_STOPWATCH_H_

#include <chrono>

namespace rk {

class Stopwatch {
 public:
  // Milliseconds since construction or the previous Lap.
  double Lap() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace rk

#endif  // REPROKIT_BASE_STOPWATCH_H_
