#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "repro/emit/runner.h"

namespace rk::repro {
namespace {

TEST(ParseRunnerArgsTest, ReadsEveryFlag) {
  const std::vector<std::string> args = {"--mode=bisect", "--known_failure", "--any_failure",
                                         "--device",      "cuda",            "--opt=faults=",
                                         "--opt",         "fast_math=true",  "--timeout=5",
                                         "--bundle=/b"};
  absl::StatusOr<RunnerArgs> parsed = ParseRunnerArgs(args);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->mode, RunnerMode::kBisect);
  EXPECT_TRUE(parsed->known_failure);
  EXPECT_TRUE(parsed->any_failure);
  EXPECT_EQ(parsed->device, "cuda");
  EXPECT_EQ(parsed->option_overrides, (std::vector<std::string>{"faults=", "fast_math=true"}));
  EXPECT_EQ(parsed->timeout_seconds, 5);
  EXPECT_EQ(parsed->bundle_dir, "/b");
}

TEST(ParseRunnerArgsTest, RejectsUnknownArgumentsAndBadValues) {
  EXPECT_EQ(ParseRunnerArgs(std::vector<std::string>{"--frobnicate"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseRunnerArgs(std::vector<std::string>{"--mode=fuzz"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseRunnerArgs(std::vector<std::string>{"--timeout=-1"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rk::repro
