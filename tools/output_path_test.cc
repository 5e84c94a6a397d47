#include "tools/output_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace rk::tools {
namespace {

namespace fs = std::filesystem;

class OutputPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / "output_path_test";
    fs::remove_all(root_);
    fs::create_directories(root_ / "dir");
    std::ofstream(root_ / "file") << "keep me\n";
  }
  std::string P(const std::string& rel) const { return (root_ / rel).string(); }
  fs::path root_;
};

TEST_F(OutputPathTest, DirectoryOutputs) {
  EXPECT_TRUE(CheckOutputPath("-o", P("new"), OutputKind::kDirectory).ok());
  EXPECT_TRUE(CheckOutputPath("-o", P("new/deeper/still"), OutputKind::kDirectory).ok());
  EXPECT_TRUE(CheckOutputPath("-o", P("dir"), OutputKind::kDirectory).ok());
  absl::Status s = CheckOutputPath("-o", P("file"), OutputKind::kDirectory);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("exists and is not a directory"), std::string::npos) << s;
  s = CheckOutputPath("-o", P("file/below"), OutputKind::kDirectory);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("is not a directory"), std::string::npos) << s;
  // Nothing was created or changed.
  EXPECT_FALSE(fs::exists(P("new")));
  std::ifstream in(P("file"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "keep me\n");
  EXPECT_EQ(CheckOutputPath("-o", "", OutputKind::kDirectory).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(OutputPathTest, FileOutputs) {
  EXPECT_TRUE(CheckOutputPath("-o", P("new.onnx"), OutputKind::kFile).ok());
  EXPECT_TRUE(CheckOutputPath("-o", P("file"), OutputKind::kFile).ok());
  absl::Status s = CheckOutputPath("-o", P("dir"), OutputKind::kFile);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s;
  EXPECT_EQ(CheckOutputPath("-o", P("file/x.html"), OutputKind::kFile).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(OutputPathTest, UnwritablePlaces) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere; permissions cannot be tested";
  fs::create_directories(root_ / "locked");
  ::chmod(P("locked").c_str(), 0555);
  absl::Status s = CheckOutputPath("-o", P("locked/out"), OutputKind::kDirectory);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_EQ(CheckOutputPath("-o", P("locked/out.html"), OutputKind::kFile).code(),
            absl::StatusCode::kPermissionDenied);
  ::chmod(P("locked").c_str(), 0755);
}

}  // namespace
}  // namespace rk::tools
