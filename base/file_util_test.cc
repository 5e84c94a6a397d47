#include "base/file_util.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace rk {
namespace {

std::string TempDir() {
  std::string pattern = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                                                 : "/tmp") +
                        "/file_util_XXXXXX";
  return ::mkdtemp(pattern.data());
}

TEST(FileUtilTest, WriteThenReadRoundTripsBinaryBytes) {
  const std::string path = TempDir() + "/blob";
  const std::string bytes("a\0b\xff\n", 5);
  ASSERT_TRUE(WriteStringToFile(path, bytes).ok());
  absl::StatusOr<std::string> read = ReadFileToString(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, bytes);
}

TEST(FileUtilTest, LargeFilesReadWhole) {
  const std::string path = TempDir() + "/large";
  const std::string bytes(300000, 'x');
  ASSERT_TRUE(WriteStringToFile(path, bytes).ok());
  absl::StatusOr<std::string> read = ReadFileToString(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->size(), bytes.size());
}

TEST(FileUtilTest, MissingFileIsNotFoundAndNamesThePath) {
  const std::string path = TempDir() + "/missing";
  absl::StatusOr<std::string> read = ReadFileToString(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(read.status().message().find(path), std::string::npos);
}

TEST(FileUtilTest, ReadingADirectoryIsInvalidArgument) {
  EXPECT_EQ(ReadFileToString(TempDir()).status().code(), absl::StatusCode::kInvalidArgument);
}

// The codes decide exit statuses: out of space is an environment problem,
// a directory given as a file is bad input; neither may read as "reproduces".
TEST(FileUtilTest, ErrnoStatusCodesFitTheCause) {
  EXPECT_EQ(ErrnoStatus(ENOSPC, "writing", "f").code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrnoStatus(EACCES, "writing", "f").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoStatus(ENOENT, "reading", "f").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ErrnoStatus(EISDIR, "writing", "d").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrnoStatus(ENOTDIR, "writing", "f/x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrnoStatus(ENOSPC, "writing", "f").message(), "writing f: No space left on device");
}

TEST(FileUtilTest, AtomicWriteReplacesAndCreatesParents) {
  const std::string path = TempDir() + "/a/b/state.json";
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "new").ok());
  EXPECT_EQ(*ReadFileToString(path), "new");
}

TEST(FileUtilTest, WriteIntoAMissingDirectoryFails) {
  const std::string path = TempDir() + "/no/such/dir/file";
  absl::Status s = WriteStringToFile(path, "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find(path), std::string::npos);
}

}  // namespace
}  // namespace rk
