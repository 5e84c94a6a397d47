#include "compiler/support/version.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

TEST(VersionTest, LlvmIs19) { EXPECT_EQ(std::string(LlvmVersion()).substr(0, 3), "19."); }

TEST(VersionTest, CommitIsNotEmpty) { EXPECT_FALSE(std::string(GitCommit()).empty()); }

TEST(VersionTest, SemanticVersion) {
  std::string v = ReprokitVersion();
  EXPECT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
}

}  // namespace
}  // namespace rk::compiler
