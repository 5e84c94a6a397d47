#include "base/leftovers.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace rk {
namespace {

namespace fs = std::filesystem;

// The pid of a child that has exited and been reaped: a process that is gone.
long GonePid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

TEST(Leftovers, PidInName) {
  EXPECT_EQ(PidInLeftoverName("reprokit-values-123-AbCdEf", "reprokit-values-"), 123);
  EXPECT_EQ(PidInLeftoverName(".tmp.out.new.77.9999", ".tmp.out.new."), 77);
  EXPECT_EQ(PidInLeftoverName("reprokit-values-42", "reprokit-values-"), 42);
  EXPECT_EQ(PidInLeftoverName("reprokit-values-AbCdEf", "reprokit-values-"), -1);
  EXPECT_EQ(PidInLeftoverName("reprokit-values-12x", "reprokit-values-"), -1);
  EXPECT_EQ(PidInLeftoverName("other-12-x", "reprokit-values-"), -1);
  EXPECT_EQ(PidInLeftoverName("reprokit-values-12345678901234-x", "reprokit-values-"), -1);
}

TEST(Leftovers, ProcessIsGone) {
  EXPECT_FALSE(ProcessIsGone(::getpid()));
  EXPECT_TRUE(ProcessIsGone(GonePid()));
  EXPECT_FALSE(ProcessIsGone(0));
  EXPECT_FALSE(ProcessIsGone(-5));
}

TEST(Leftovers, RemovesOnlyThoseOfGoneProcesses) {
  fs::path dir = fs::path(::testing::TempDir()) / "leftovers";
  fs::remove_all(dir);
  fs::create_directories(dir);
  long gone = GonePid();
  fs::path dead_dir = dir / absl::StrCat("reprokit-values-", gone, "-abc");
  fs::create_directories(dead_dir / "cas" / "ab");
  std::ofstream(dead_dir / "cas" / "ab" / "object") << "bytes";
  fs::path dead_file = dir / absl::StrCat("reprokit-values-", gone, ".x");
  std::ofstream(dead_file) << "x";
  fs::path live = dir / absl::StrCat("reprokit-values-", ::getpid(), "-abc");
  fs::create_directories(live);
  fs::path unrelated = dir / "reprokit-values-XYZ123";
  fs::create_directories(unrelated);
  fs::path other_prefix = dir / absl::StrCat("something-", gone, "-abc");
  fs::create_directories(other_prefix);

  std::vector<std::string> removed = RemoveLeftoversOfGoneProcesses(dir.string(), "reprokit-values-");
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_FALSE(fs::exists(dead_dir));
  EXPECT_FALSE(fs::exists(dead_file));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(unrelated));
  EXPECT_TRUE(fs::exists(other_prefix));
}

TEST(Leftovers, RemovesTempFilesOfAtomicWritesOfGoneProcesses) {
  fs::path dir = fs::path(::testing::TempDir()) / "temps";
  fs::remove_all(dir);
  fs::create_directories(dir);
  long gone = GonePid();
  fs::path dead = dir / absl::StrCat(".tmp.junit.xml.", gone, ".2943556157710312942");
  fs::path live = dir / absl::StrCat(".tmp.state.json.", ::getppid(), ".5");
  fs::path odd = dir / ".tmp.x";
  fs::path file = dir / "junit.xml";
  for (const fs::path& p : {dead, live, odd, file}) std::ofstream(p) << "x";
  std::vector<std::string> removed = RemoveTempFilesOfGoneProcesses(dir.string());
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(odd));
  EXPECT_TRUE(fs::exists(file));
}

TEST(Leftovers, MissingDirectoryIsNothingToDo) {
  EXPECT_TRUE(RemoveLeftoversOfGoneProcesses("/nonexistent/leftovers", "x-").empty());
}

}  // namespace
}  // namespace rk
