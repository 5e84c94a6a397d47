#include "base/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace rk {

void ParallelFor(int n, int threads, const std::function<void(int)>& fn) {
  if (n <= 0) return;
  const int workers = std::min(n, std::max(threads, 1));
  if (workers == 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  };
  std::vector<std::thread> helpers;
  helpers.reserve(workers - 1);
  for (int t = 1; t < workers; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& h : helpers) h.join();
}

namespace {
std::atomic<int> compile_thread_limit{0};
}  // namespace

int CompileThreads(int tasks) {
  if (tasks <= 0) return 0;
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int limit = compile_thread_limit.load();
  if (const char* env = std::getenv("REPROKIT_COMPILE_THREADS"); env != nullptr && *env != 0) {
    limit = std::max(1, std::atoi(env));
  }
  return std::max(1, std::min({tasks, hardware, 8, limit > 0 ? limit : 8}));
}

void SetCompileThreadLimit(int threads) { compile_thread_limit.store(std::max(threads, 0)); }

}  // namespace rk
