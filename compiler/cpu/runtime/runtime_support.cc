#include "compiler/cpu/runtime/runtime_support.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

extern "C" {

void rk_parallel_for(RkLoopBody body, void** table, int64_t extent, int32_t threads,
                     int64_t run_counter) {
  const int64_t n = std::max<int64_t>(1, std::min<int64_t>(threads, extent));
  const int64_t chunk = (extent + n - 1) / n;
  std::vector<std::thread> workers;
  workers.reserve(n - 1);
  for (int64_t t = 1; t < n; ++t) {
    const int64_t begin = t * chunk;
    const int64_t end = std::min(extent, begin + chunk);
    if (begin >= end) break;
    workers.emplace_back([=] { body(table, begin, end, run_counter); });
  }
  body(table, 0, std::min(extent, chunk), run_counter);
  for (std::thread& w : workers) w.join();
}

int64_t rk_double_to_i64_wrapped(double v) {
  if (!std::isfinite(v)) return 0;
  const double t = std::trunc(v);
  if (t >= -9223372036854775808.0 && t < 9223372036854775808.0) return static_cast<int64_t>(t);
  // |t| >= 2^63 is an integer multiple of a power of two; reduce modulo 2^64.
  double m = std::fmod(t, 18446744073709551616.0);
  if (m < 0) m += 18446744073709551616.0;
  const uint64_t u = m >= 9223372036854775808.0
                         ? static_cast<uint64_t>(m - 9223372036854775808.0) + (1ULL << 63)
                         : static_cast<uint64_t>(m);
  return static_cast<int64_t>(u);
}

}  // extern "C"
