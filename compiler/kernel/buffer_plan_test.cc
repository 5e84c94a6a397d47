#include "compiler/kernel/buffer_plan.h"

#include "gtest/gtest.h"

namespace rk::compiler::kernel {
namespace {

Buffer Temp(int64_t n) {
  Buffer b;
  b.role = BufferRole::kTemp;
  b.type = TensorType(DType::kF32, Shape({n}));
  return b;
}

TEST(BufferPlanTest, DisjointLifetimesShareBytes) {
  Program p;
  p.buffers = {Temp(100), Temp(100), Temp(100)};
  Kernel k0, k1, k2;
  k0.writes = {0};
  k1.reads = {0};
  k1.writes = {1};
  k2.reads = {1};
  k2.writes = {2};
  p.kernels = {k0, k1, k2};
  PlanBuffers(p);
  EXPECT_NE(p.buffers[0].arena_offset, p.buffers[1].arena_offset);  // both live in k1
  EXPECT_EQ(p.buffers[2].arena_offset, p.buffers[0].arena_offset);  // 0 is dead by k2
  EXPECT_EQ(p.arena_bytes, 2 * 448);
}

}  // namespace
}  // namespace rk::compiler::kernel
