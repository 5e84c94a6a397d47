#include "tools/oracle_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rk::tools {
namespace {

using ::testing::HasSubstr;
using Args = std::vector<std::string>;

TEST(OracleFlagsTest, DefaultsMakeAnIsolatedTorchOracle) {
  OracleFlags oracle;
  FlagSet flags("x", "d");
  oracle.Register(flags, /*takes_bundle=*/false);
  ASSERT_TRUE(flags.Parse(Args{}).ok());
  const repro::Oracle::Config config = oracle.OracleConfig();
  EXPECT_EQ(config.options.policy, "torch");
  EXPECT_EQ(config.options.accuracy.tol, 0);
  EXPECT_TRUE(config.isolate);
  EXPECT_EQ(config.limits.timeout, absl::Seconds(60));
  compiler::CompileOptions options;
  ASSERT_TRUE(oracle.ApplyTo(flags, &options).ok());
  EXPECT_EQ(options.ToString(), compiler::CompileOptions().ToString());
}

TEST(OracleFlagsTest, ParsedValuesReachTheOracleConfig) {
  OracleFlags oracle;
  FlagSet flags("x", "d");
  oracle.Register(flags, false);
  ASSERT_TRUE(flags
                  .Parse(Args{"--policy", "strict", "--tol=1e-3", "--timeout", "2.5",
                              "--in-process"})
                  .ok());
  const repro::Oracle::Config config = oracle.OracleConfig();
  EXPECT_EQ(config.options.policy, "strict");
  EXPECT_DOUBLE_EQ(config.options.accuracy.tol, 1e-3);
  EXPECT_FALSE(config.isolate);
  EXPECT_EQ(config.limits.timeout, absl::Milliseconds(2500));
}

// A timeout that never expires (nan, inf) or makes no sense (<= 0) would let
// a hang fault wait forever; --in-process cannot stop a hang at all.
TEST(OracleFlagsTest, TimeoutMustBeFinitePositiveAndIsolated) {
  for (const char* bad : {"nan", "inf", "-inf", "0", "-3"}) {
    OracleFlags oracle;
    FlagSet flags("x", "d");
    oracle.Register(flags, false);
    ASSERT_TRUE(flags.Parse(Args{"--timeout", bad}).ok()) << bad;
    compiler::CompileOptions options;
    absl::Status s = oracle.ApplyTo(flags, &options);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("--timeout: expected a finite number")) << bad;
  }
  OracleFlags oracle;
  FlagSet flags("x", "d");
  oracle.Register(flags, false);
  ASSERT_TRUE(flags.Parse(Args{"--in-process", "--timeout", "3"}).ok());
  compiler::CompileOptions options;
  EXPECT_THAT(oracle.ApplyTo(flags, &options).message(), HasSubstr("--timeout needs isolation"));
}

TEST(OracleFlagsTest, DeviceIsAppliedAfterOptsAndOnlyWhenGiven) {
  {
    OracleFlags oracle;
    FlagSet flags("x", "d");
    oracle.Register(flags, true);
    ASSERT_TRUE(flags.Parse(Args{"--opt", "device=cuda", "--opt", "opt_level=0"}).ok());
    compiler::CompileOptions options;
    ASSERT_TRUE(oracle.ApplyTo(flags, &options).ok());
    EXPECT_EQ(options.device, "cuda") << "an unset --device keeps --opt's (or a bundle's)";
    EXPECT_EQ(options.opt_level, 0);
  }
  {
    OracleFlags oracle;
    FlagSet flags("x", "d");
    oracle.Register(flags, true);
    ASSERT_TRUE(flags.Parse(Args{"--opt", "device=cuda", "--device", "cpu"}).ok());
    compiler::CompileOptions options;
    ASSERT_TRUE(oracle.ApplyTo(flags, &options).ok());
    EXPECT_EQ(options.device, "cpu");
  }
}

TEST(OracleFlagsTest, BadOptionsAreInvalidArguments) {
  OracleFlags oracle;
  FlagSet flags("x", "d");
  oracle.Register(flags, false);
  ASSERT_TRUE(flags.Parse(Args{"--opt", "no_such_key=1"}).ok());
  compiler::CompileOptions options;
  EXPECT_EQ(oracle.ApplyTo(flags, &options).code(), absl::StatusCode::kInvalidArgument);
}

TEST(OracleFlagsTest, RecordedPolicyAndTolApplyUnlessGiven) {
  OracleFlags oracle;
  FlagSet flags("x", "d");
  oracle.Register(flags, true);
  ASSERT_TRUE(flags.Parse(Args{"--tol", "0.5"}).ok());
  oracle.DefaultToRecorded(flags, "cosine", 1e-2);
  EXPECT_EQ(oracle.policy, "cosine");
  EXPECT_DOUBLE_EQ(oracle.tol, 0.5);
}

TEST(OracleFlagsTest, HelpDocumentsEveryFlagAndTheBundleRule) {
  OracleFlags oracle;
  FlagSet flags("x", "d");
  oracle.Register(flags, true);
  const std::string help = flags.Help();
  for (const char* name : {"--opt", "--device", "--policy", "--tol", "--timeout", "--in-process"}) {
    EXPECT_THAT(help, HasSubstr(name));
  }
  EXPECT_THAT(help, HasSubstr("accuracy policy: torch, strict or cosine; a BUNDLE's unless given "
                              "(default: torch)"));
  EXPECT_THAT(help, HasSubstr("(default: 60)"));
  FlagSet plain("x", "d");
  OracleFlags other;
  other.Register(plain, false);
  EXPECT_THAT(plain.Help(), ::testing::Not(HasSubstr("BUNDLE")));
}

}  // namespace
}  // namespace rk::tools
