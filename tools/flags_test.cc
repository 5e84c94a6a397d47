#include "tools/flags.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rk::tools {
namespace {

using Args = std::vector<std::string>;

struct Fixture {
  std::string out = "default";
  int64_t jobs = 1;
  double tol = 0.5;
  bool json = false;
  std::vector<std::string> opts;
  FlagSet flags{"x ARG", "test"};
  Fixture() {
    flags.String("out", &out, "output", 'o');
    flags.Int("jobs", &jobs, "jobs", 'j');
    flags.Double("tol", &tol, "tolerance");
    flags.Bool("json", &json, "json");
    flags.Repeated("opt", &opts, "options");
  }
};

TEST(FlagsTest, ParsesAllForms) {
  Fixture f;
  auto pos = f.flags.Parse(Args{"a", "--out=dir", "-j", "4", "--tol", "1e-3", "--json",
                                "--opt", "x=1", "--opt=y=2", "b"});
  ASSERT_TRUE(pos.ok()) << pos.status();
  EXPECT_EQ(*pos, (Args{"a", "b"}));
  EXPECT_EQ(f.out, "dir");
  EXPECT_EQ(f.jobs, 4);
  EXPECT_DOUBLE_EQ(f.tol, 1e-3);
  EXPECT_TRUE(f.json);
  EXPECT_EQ(f.opts, (Args{"x=1", "y=2"}));
  EXPECT_TRUE(f.flags.WasSet("jobs"));
  EXPECT_TRUE(f.flags.WasSet("json"));
  EXPECT_FALSE(f.flags.WasSet("bogus"));
}

TEST(FlagsTest, WasSetOnlyForGivenFlags) {
  Fixture f;
  ASSERT_TRUE(f.flags.Parse(Args{"--no-json"}).ok());
  EXPECT_TRUE(f.flags.WasSet("json"));
  EXPECT_FALSE(f.flags.WasSet("out"));
}

TEST(FlagsTest, ShortFlagWithAttachedValue) {
  Fixture f;
  ASSERT_TRUE(f.flags.Parse(Args{"-j8", "-o=out"}).ok());
  EXPECT_EQ(f.jobs, 8);
  EXPECT_EQ(f.out, "out");
}

TEST(FlagsTest, UnknownFlagIsAnError) {
  Fixture f;
  auto pos = f.flags.Parse(Args{"--bogus"});
  ASSERT_FALSE(pos.ok());
  EXPECT_EQ(pos.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(pos.status().message().find("--bogus"), std::string::npos);
}

TEST(FlagsTest, BadIntegerIsAnError) {
  Fixture f;
  auto pos = f.flags.Parse(Args{"-j", "many"});
  ASSERT_FALSE(pos.ok());
  EXPECT_NE(pos.status().message().find("expected an integer"), std::string::npos);
}

TEST(FlagsTest, MissingValueIsAnError) {
  Fixture f;
  EXPECT_FALSE(f.flags.Parse(Args{"--out"}).ok());
}

TEST(FlagsTest, DoubleDashEndsFlags) {
  Fixture f;
  auto pos = f.flags.Parse(Args{"--", "--json", "-j"});
  ASSERT_TRUE(pos.ok());
  EXPECT_EQ(*pos, (Args{"--json", "-j"}));
  EXPECT_FALSE(f.json);
}

TEST(FlagsTest, NegativeNumberIsPositional) {
  Fixture f;
  auto pos = f.flags.Parse(Args{"-3"});
  ASSERT_TRUE(pos.ok());
  EXPECT_EQ(*pos, (Args{"-3"}));
}

TEST(FlagsTest, NoPrefixClearsBool) {
  Fixture f;
  f.json = true;
  ASSERT_TRUE(f.flags.Parse(Args{"--no-json"}).ok());
  EXPECT_FALSE(f.json);
}

TEST(FlagsTest, HelpListsFlagsAndDefaults) {
  Fixture f;
  ASSERT_TRUE(f.flags.Parse(Args{"--help"}).ok());
  EXPECT_TRUE(f.flags.help_requested());
  std::string help = f.flags.Help();
  EXPECT_NE(help.find("usage: reprokit x ARG"), std::string::npos);
  EXPECT_NE(help.find("-j, --jobs=N"), std::string::npos);
  EXPECT_NE(help.find("(default: default)"), std::string::npos);
}

}  // namespace
}  // namespace rk::tools
