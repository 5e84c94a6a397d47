#include "compiler/kernel/buffer_plan.h"

#include <algorithm>

namespace rk::compiler::kernel {
namespace {

struct Interval {
  int32_t buffer;
  int first;
  int last;
  int64_t offset = 0;
  int64_t size = 0;
};

int64_t AlignUp(int64_t v) { return (v + 63) / 64 * 64; }

}  // namespace

void PlanBuffers(Program& program) {
  const int n = static_cast<int>(program.buffers.size());
  std::vector<int> first(n, -1), last(n, -1);
  for (int k = 0; k < static_cast<int>(program.kernels.size()); ++k) {
    const Kernel& kernel = program.kernels[k];
    for (int32_t b : kernel.writes) {
      if (first[b] < 0) first[b] = k;
      last[b] = std::max(last[b], k);
    }
    for (int32_t b : kernel.reads) {
      if (first[b] < 0) first[b] = k;
      last[b] = std::max(last[b], k);
    }
  }
  std::vector<Interval> placed;
  int64_t arena = 0;
  for (int b = 0; b < n; ++b) {
    Buffer& buffer = program.buffers[b];
    if (buffer.role != BufferRole::kTemp || first[b] < 0) continue;
    Interval iv{b, first[b], last[b], 0, AlignUp(std::max<int64_t>(buffer.type.byte_size(), 1))};
    std::vector<const Interval*> live;
    for (const Interval& p : placed) {
      if (!(p.last < iv.first || iv.last < p.first)) live.push_back(&p);
    }
    std::sort(live.begin(), live.end(),
              [](const Interval* a, const Interval* b) { return a->offset < b->offset; });
    int64_t offset = 0;
    for (const Interval* p : live) {
      if (offset + iv.size <= p->offset) break;
      offset = std::max(offset, p->offset + p->size);
    }
    iv.offset = offset;
    buffer.arena_offset = offset;
    arena = std::max(arena, offset + iv.size);
    placed.push_back(iv);
  }
  program.arena_bytes = arena;
}

}  // namespace rk::compiler::kernel
