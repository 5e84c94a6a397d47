// DiskKernelCache on its own: a miss, then a hit of the same bytes; corrupt,
// truncated and misplaced entries read as misses and are replaced; two
// processes writing the same keys at once leave only whole entries; eviction
// removes the least recently used entries (a hit counts as a use); the
// environment names the directory or turns the cache off.
#include "compiler/support/disk_kernel_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/sha256.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

std::string FreshDir(const std::string& name) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

std::string KeyOf(int i) { return Sha256Hex(absl::StrCat("kernel ", i)); }

std::string ObjectOf(int i, size_t bytes = 1000) {
  std::string object(bytes, '\0');
  for (size_t j = 0; j < bytes; ++j) object[j] = static_cast<char>((i * 131 + j * 7) & 0xff);
  return object;
}

TEST(DiskKernelCacheTest, MissThenHit) {
  DiskKernelCache cache(FreshDir("miss_then_hit"), DiskKernelCache::kDefaultMaxBytes);
  EXPECT_FALSE(cache.Load(KeyOf(1)).has_value());
  cache.Store(KeyOf(1), ObjectOf(1));
  std::optional<std::string> hit = cache.Load(KeyOf(1));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, ObjectOf(1));
  EXPECT_FALSE(cache.Load(KeyOf(2)).has_value());
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 2);
  EXPECT_EQ(cache.corrupt(), 0);
  EXPECT_TRUE(std::filesystem::exists(absl::StrCat(cache.dir(), "/", KeyOf(1), ".o")));
}

TEST(DiskKernelCacheTest, CorruptEntriesAreMissesAndGetReplaced) {
  DiskKernelCache cache(FreshDir("corrupt"), DiskKernelCache::kDefaultMaxBytes);
  const std::string path = absl::StrCat(cache.dir(), "/", KeyOf(1), ".o");
  cache.Store(KeyOf(1), ObjectOf(1));
  absl::StatusOr<std::string> whole = ReadFileToString(path);
  ASSERT_TRUE(whole.ok()) << whole.status();

  std::string flipped = *whole;
  flipped[flipped.size() - 10] ^= 0x40;  // one bit of the object
  ASSERT_TRUE(WriteStringToFile(path, flipped).ok());
  EXPECT_FALSE(cache.Load(KeyOf(1)).has_value());
  EXPECT_EQ(cache.corrupt(), 1);

  ASSERT_TRUE(WriteStringToFile(path, whole->substr(0, whole->size() / 2)).ok());  // torn
  EXPECT_FALSE(cache.Load(KeyOf(1)).has_value());
  ASSERT_TRUE(WriteStringToFile(path, "").ok());
  EXPECT_FALSE(cache.Load(KeyOf(1)).has_value());
  EXPECT_EQ(cache.corrupt(), 3);

  // A whole entry under another key's name (its header names its own key).
  ASSERT_TRUE(WriteStringToFile(absl::StrCat(cache.dir(), "/", KeyOf(2), ".o"), *whole).ok());
  EXPECT_FALSE(cache.Load(KeyOf(2)).has_value());
  EXPECT_EQ(cache.corrupt(), 4);

  // The recompiled object replaces the broken entry.
  cache.Store(KeyOf(1), ObjectOf(1));
  std::optional<std::string> hit = cache.Load(KeyOf(1));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, ObjectOf(1));
}

TEST(DiskKernelCacheTest, BadKeysAndUnwritableDirectoriesAreCountedNotFatal) {
  DiskKernelCache cache(FreshDir("bad_keys"), DiskKernelCache::kDefaultMaxBytes);
  cache.Store("../escape", ObjectOf(1));
  EXPECT_FALSE(cache.Load("../escape").has_value());
  EXPECT_EQ(cache.write_failures(), 1);

  const std::string file = absl::StrCat(FreshDir("not_a_dir"));
  ASSERT_TRUE(WriteStringToFile(file, "x").ok());
  DiskKernelCache under_file(absl::StrCat(file, "/kernels"), DiskKernelCache::kDefaultMaxBytes);
  under_file.Store(KeyOf(1), ObjectOf(1));
  EXPECT_EQ(under_file.write_failures(), 1);
  EXPECT_FALSE(under_file.Load(KeyOf(1)).has_value());
}

// Two processes store the same 40 keys (same bytes, as two compilers of the
// same kernel would) 25 times each, racing on every rename.
TEST(DiskKernelCacheTest, TwoProcessesWritingTheSameKeys) {
  const std::string dir = FreshDir("two_writers");
  constexpr int kKeys = 40;
  pid_t children[2];
  for (pid_t& child : children) {
    child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      DiskKernelCache cache(dir, DiskKernelCache::kDefaultMaxBytes);
      for (int round = 0; round < 25; ++round) {
        for (int i = 0; i < kKeys; ++i) {
          cache.Store(KeyOf(i), ObjectOf(i, 500 + 97 * i));
          std::optional<std::string> read = cache.Load(KeyOf((i * 7) % kKeys));
          // Any entry another process may be replacing reads whole or not at all.
          if (cache.corrupt() != 0 || cache.write_failures() != 0) ::_exit(3);
          if (read.has_value() && *read != ObjectOf((i * 7) % kKeys, 500 + 97 * ((i * 7) % kKeys))) {
            ::_exit(4);
          }
        }
      }
      ::_exit(0);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  DiskKernelCache cache(dir, DiskKernelCache::kDefaultMaxBytes);
  for (int i = 0; i < kKeys; ++i) {
    std::optional<std::string> read = cache.Load(KeyOf(i));
    ASSERT_TRUE(read.has_value()) << i;
    EXPECT_EQ(*read, ObjectOf(i, 500 + 97 * i));
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().extension(), ".o") << entry.path();  // no temporaries left
    ++files;
  }
  EXPECT_EQ(files, kKeys);
}

TEST(DiskKernelCacheTest, EvictsLeastRecentlyUsed) {
  const std::string dir = FreshDir("evict");
  // Entries of ~1.2 KiB (header included); room for 8.
  DiskKernelCache cache(dir, 8 * 1200);
  for (int i = 0; i < 6; ++i) cache.Store(KeyOf(i), ObjectOf(i));
  // Entry i last used i minutes after the epoch-ish base, so 0 is the oldest...
  for (int i = 0; i < 6; ++i) {
    const std::string path = absl::StrCat(dir, "/", KeyOf(i), ".o");
    timespec times[2] = {{1000000 + 60 * i, 0}, {1000000 + 60 * i, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  }
  // ...until a hit makes it the newest.
  ASSERT_TRUE(cache.Load(KeyOf(0)).has_value());
  // The ninth entry passes the bound: the three oldest go.
  for (int i = 6; i < 9; ++i) cache.Store(KeyOf(i), ObjectOf(i));
  EXPECT_EQ(cache.evicted(), 3);
  uint64_t total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) total += entry.file_size();
  EXPECT_LE(total, 8u * 1200);
  DiskKernelCache reader(dir, 8 * 1200);
  EXPECT_TRUE(reader.Load(KeyOf(0)).has_value());   // used recently
  EXPECT_FALSE(reader.Load(KeyOf(1)).has_value());  // the oldest
  EXPECT_TRUE(reader.Load(KeyOf(8)).has_value());  // just written
}

TEST(DiskKernelCacheTest, TheEnvironmentNamesTheDirectory) {
  ::setenv("REPROKIT_KERNEL_CACHE", "/some/dir", 1);
  EXPECT_EQ(DiskKernelCache::DirFromEnvironment(), "/some/dir");
  ::setenv("REPROKIT_KERNEL_CACHE", "off", 1);
  EXPECT_EQ(DiskKernelCache::DirFromEnvironment(), "");
  ::unsetenv("REPROKIT_KERNEL_CACHE");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(DiskKernelCache::DirFromEnvironment(), "/xdg/reprokit/kernels");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(DiskKernelCache::DirFromEnvironment(), "/home/someone/.cache/reprokit/kernels");
}

}  // namespace
}  // namespace rk::compiler
