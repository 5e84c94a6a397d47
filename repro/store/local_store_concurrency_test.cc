// Several processes writing overlapping blobs into one store at once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "base/sha256.h"
#include "repro/store/local_store.h"
#include "repro/store/store_test_util.h"

namespace rk::repro {
namespace {

constexpr int kProcesses = 6;
constexpr int kBlobs = 24;
constexpr int kPutsPerProcess = 40;

// Blob i: mostly small, a few over the multithreading threshold, every third
// one float data stored shuffled.
std::string Blob(int i) {
  size_t size = i % 8 == 0 ? (2 << 20) + i : 1000 * (i + 1);
  return i % 3 == 0 ? SmoothFloats(size / 4, i) : RandomBytes(size, i);
}

PutOptions OptionsFor(int i) { return PutOptions{.element_size = i % 3 == 0 ? 4 : 0}; }

// One writer: Puts a random sequence of blobs (so that processes collide on
// the same digests), some through the streaming path, reading each back.
int Writer(const std::string& root, int seed) {
  absl::StatusOr<std::unique_ptr<LocalStore>> store = LocalStore::Open(root);
  if (!store.ok()) return 3;
  std::mt19937 random(seed);
  for (int k = 0; k < kPutsPerProcess; ++k) {
    int i = static_cast<int>(random() % kBlobs);
    std::string blob = Blob(i);
    absl::StatusOr<Digest> d;
    if (k % 4 == 0) {
      StringSource source(blob);
      d = (*store)->PutStream(source, OptionsFor(i));
    } else {
      d = (*store)->Put(blob, OptionsFor(i));
    }
    if (!d.ok()) {
      std::fprintf(stderr, "writer %d: %s\n", seed, std::string(d.status().message()).c_str());
      return 4;
    }
    absl::StatusOr<std::string> back = (*store)->Get(*d);
    if (!back.ok() || *back != blob) {
      std::fprintf(stderr, "writer %d: read back: %s\n", seed,
                   std::string(back.status().message()).c_str());
      return 5;
    }
  }
  return 0;
}

TEST(LocalStoreConcurrencyTest, ProcessesWritingAtOnceLeaveAConsistentStore) {
  std::string root = MakeTestDir("concurrent") + "/store";
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(start[1]);
      char c;
      // Returns when the parent closes the pipe, so all writers start together.
      ssize_t started = ::read(start[0], &c, 1);
      (void)started;
      ::_exit(Writer(root, p));
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }

  auto store = LocalStore::Open(root);
  ASSERT_TRUE(store.ok());
  absl::StatusOr<VerifyReport> report = (*store)->Verify();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->corrupt.empty()) << report->corrupt[0].path << ": " << report->corrupt[0].reason;
  EXPECT_EQ(report->temp_files, 0);
  EXPECT_TRUE(report->stray_files.empty());
  absl::StatusOr<std::vector<Digest>> all = (*store)->List();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(static_cast<int64_t>(all->size()), report->objects);
  // Every blob that some writer stored is there and intact; writers together
  // cover nearly all of the pool.
  int found = 0;
  for (int i = 0; i < kBlobs; ++i) {
    std::string blob = Blob(i);
    Digest d = Sha256(blob);
    if (!*(*store)->Contains(d)) continue;
    ++found;
    absl::StatusOr<std::string> back = (*store)->Get(d);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(*back == blob) << i;
  }
  EXPECT_EQ(found, static_cast<int>(all->size()));
  EXPECT_GE(found, kBlobs - 2);
}

}  // namespace
}  // namespace rk::repro
