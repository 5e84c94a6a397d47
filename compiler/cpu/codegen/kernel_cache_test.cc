#include "compiler/cpu/codegen/kernel_cache.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace rk::compiler::cpu {
namespace {

int g_code[8];

KernelCache::Entry EntryFor(int i, std::shared_ptr<const void> owner = nullptr) {
  return KernelCache::Entry{&g_code[i], std::move(owner)};
}

TEST(KernelCacheTest, HitReturnsTheInsertedEntry) {
  KernelCache cache(4);
  EXPECT_FALSE(cache.Lookup("a").has_value());
  cache.Insert("a", EntryFor(1));
  std::optional<KernelCache::Entry> hit = cache.Lookup("a");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->fn, &g_code[1]);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 1);
}

TEST(KernelCacheTest, KeysMatchOnlyInFull) {
  KernelCache cache(4);
  cache.Insert("define void @k() {\n  ret void\n}", EntryFor(1));
  EXPECT_FALSE(cache.Lookup("define void @k() {\n  ret void\n} ").has_value());
  EXPECT_FALSE(cache.Lookup("define void @k() {").has_value());
  EXPECT_FALSE(cache.Lookup("").has_value());
}

TEST(KernelCacheTest, EvictsLeastRecentlyUsed) {
  KernelCache cache(2);
  cache.Insert("a", EntryFor(1));
  cache.Insert("b", EntryFor(2));
  ASSERT_TRUE(cache.Lookup("a").has_value());  // b is now the oldest
  cache.Insert("c", EntryFor(3));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_TRUE(cache.Lookup("a").has_value());
  EXPECT_FALSE(cache.Lookup("b").has_value());
  EXPECT_TRUE(cache.Lookup("c").has_value());
}

TEST(KernelCacheTest, ReinsertReplacesWithoutGrowing) {
  KernelCache cache(2);
  cache.Insert("a", EntryFor(1));
  cache.Insert("a", EntryFor(2));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.Lookup("a")->fn, &g_code[2]);
}

TEST(KernelCacheTest, EvictionReleasesOnlyTheCachesReference) {
  KernelCache cache(1);
  auto owner = std::make_shared<int>(5);
  std::weak_ptr<int> watch = owner;
  cache.Insert("a", EntryFor(1, owner));
  std::optional<KernelCache::Entry> held = cache.Lookup("a");
  owner.reset();
  cache.Insert("b", EntryFor(2));  // evicts "a"
  EXPECT_FALSE(watch.expired());   // `held` still owns the code
  held.reset();
  EXPECT_TRUE(watch.expired());
}

TEST(KernelCacheTest, ZeroCapacityCachesNothing) {
  KernelCache cache(0);
  cache.Insert("a", EntryFor(1));
  EXPECT_FALSE(cache.Lookup("a").has_value());
}

TEST(KernelCacheTest, ConcurrentUseKeepsEntriesConsistent) {
  KernelCache cache(16);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        const int k = (i + t) % 8;
        const std::string key = "key" + std::to_string(k);
        if (std::optional<KernelCache::Entry> hit = cache.Lookup(key)) {
          EXPECT_EQ(hit->fn, &g_code[k]);
        } else {
          cache.Insert(key, EntryFor(k));
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(cache.size(), 8u);
  EXPECT_EQ(cache.hits() + cache.misses(), 8 * 2000);
}

}  // namespace
}  // namespace rk::compiler::cpu
