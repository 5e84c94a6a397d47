#include "compiler/options/compile_options.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;

TEST(CompileOptionsTest, DefaultsPrintAsEmpty) {
  EXPECT_EQ(CompileOptions().ToString(), "");
  absl::StatusOr<CompileOptions> parsed = CompileOptions::Parse("");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, CompileOptions());
}

TEST(CompileOptionsTest, ToStringUsesFixedKeyOrderAndOmitsDefaults) {
  CompileOptions options;
  ASSERT_TRUE(options.Set("max_pass_applications", "17").ok());
  ASSERT_TRUE(options.Set("faults", "relu:accuracy").ok());
  ASSERT_TRUE(options.Set("fast_math", "true").ok());
  ASSERT_TRUE(options.Set("device", "cpu").ok());
  EXPECT_EQ(options.ToString(), "max_pass_applications=17 fast_math=true faults=relu:accuracy");
}

TEST(CompileOptionsTest, RoundTripsEveryKey) {
  CompileOptions options;
  options.device = "cuda";
  options.opt_level = 1;
  options.disable_passes = {"cse", "dce"};
  options.max_pass_applications = 0;
  options.fast_math = true;
  options.low_precision = true;
  options.reduce_order = ReduceOrder::kTree;
  options.vector_width = 8;
  options.threads = 4;
  options.faults = {"relu:accuracy", "cse:crash"};
  options.dump_dir = "/tmp/dump";
  options.checked = true;
  options.cuda_arch = "auto";
  options.tensor_cores = false;
  options.tf32 = true;
  const std::string text = options.ToString();
  EXPECT_EQ(text,
            "device=cuda opt_level=1 disable_passes=cse,dce max_pass_applications=0 "
            "fast_math=true low_precision=true reduce_order=tree vector_width=8 threads=4 "
            "faults=relu:accuracy,cse:crash dump_dir=/tmp/dump checked=true cuda_arch=auto "
            "tensor_cores=false tf32=true");
  absl::StatusOr<CompileOptions> parsed = CompileOptions::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->disable_passes, options.disable_passes);
  EXPECT_EQ(parsed->faults, options.faults);
  EXPECT_EQ(parsed->threads, 4);
  EXPECT_EQ(parsed->reduce_order, ReduceOrder::kTree);
  EXPECT_EQ(*parsed, options);
}

TEST(CompileOptionsTest, ReduceOrderParsesPrintsAndRejectsUnknownOrders) {
  absl::StatusOr<CompileOptions> tree = CompileOptions::Parse("reduce_order=tree");
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->reduce_order, ReduceOrder::kTree);
  EXPECT_EQ(tree->ToString(), "reduce_order=tree");
  absl::StatusOr<CompileOptions> sequential =
      CompileOptions::Parse("reduce_order=tree reduce_order=sequential");
  ASSERT_TRUE(sequential.ok()) << sequential.status();
  EXPECT_EQ(sequential->reduce_order, ReduceOrder::kSequential);
  EXPECT_EQ(sequential->ToString(), "") << "sequential is the default";
  CompileOptions options;
  absl::Status bad = options.Set("reduce_order", "pairwise");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("expected sequential or tree"));
}

TEST(CompileOptionsTest, ItemsListsEveryKeyInOrder) {
  std::vector<std::pair<std::string, std::string>> items = CompileOptions().Items();
  ASSERT_EQ(items.size(), 18u);
  EXPECT_EQ(items.front(), (std::pair<std::string, std::string>("device", "cpu")));
  EXPECT_EQ(items[3], (std::pair<std::string, std::string>("max_pass_applications", "-1")));
  EXPECT_EQ(items[12], (std::pair<std::string, std::string>("cuda_arch", "sm_90")));
  EXPECT_EQ(items[13], (std::pair<std::string, std::string>("tensor_cores", "true")));
  EXPECT_EQ(items[14], (std::pair<std::string, std::string>("tf32", "false")));
  EXPECT_EQ(items[15], (std::pair<std::string, std::string>("cuda_max_fused_ops", "144")));
  EXPECT_EQ(items[16], (std::pair<std::string, std::string>("backend", "")));
  EXPECT_EQ(items.back(), (std::pair<std::string, std::string>("backend_options", "")));
}

TEST(CompileOptionsTest, ExternalBackendOptionsRoundTrip) {
  absl::StatusOr<CompileOptions> options = CompileOptions::Parse(
      "backend=torch_inductor backend_options=cpp.inject_relu_bug_TESTING_ONLY:accuracy,mode:default");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_TRUE(options->external());
  EXPECT_EQ(options->backend_options.size(), 2u);
  EXPECT_EQ(CompileOptions::Parse(options->ToString()).value(), *options);
  // "builtin" is the built-in compiler; an option item needs KEY:VALUE.
  ASSERT_TRUE(options->Set("backend", "builtin").ok());
  EXPECT_FALSE(options->external());
  EXPECT_FALSE(options->Set("backend_options", "novalue").ok());
  EXPECT_FALSE(options->Set("backend", "two words").ok());
}

TEST(CompileOptionsTest, ApplyAppliesInOrder) {
  CompileOptions options;
  ASSERT_TRUE(options.Apply({"threads=2", "threads=3", "disable_passes=cse"}).ok());
  EXPECT_EQ(options.threads, 3);
  EXPECT_EQ(options.disable_passes, std::vector<std::string>{"cse"});
  ASSERT_TRUE(options.Apply({"disable_passes="}).ok());
  EXPECT_TRUE(options.disable_passes.empty());
}

TEST(CompileOptionsTest, UnknownKeyListsValidKeys) {
  CompileOptions options;
  absl::Status status = options.Set("fastmath", "true");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("unknown compile option 'fastmath'"));
  EXPECT_THAT(status.message(), HasSubstr("valid keys: device, opt_level, disable_passes"));
  EXPECT_THAT(status.message(), HasSubstr("cuda_arch"));
}

struct BadValueCase {
  std::string key;
  std::string value;
  std::string message;
};

TEST(CompileOptionsTest, BadValuesNameKeyAndValue) {
  const std::vector<BadValueCase> cases = {
      {"device", "tpu", "device=tpu: expected cpu or cuda"},
      {"opt_level", "3", "opt_level=3: expected 0, 1 or 2"},
      {"opt_level", "two", "opt_level=two: expected an integer"},
      {"fast_math", "yes", "fast_math=yes: expected true or false"},
      {"vector_width", "3", "vector_width=3: expected 0"},
      {"threads", "0", "threads=0: expected 1..1024"},
      {"max_pass_applications", "-2", "max_pass_applications=-2"},
      {"faults", "relu:accuracy,", "empty list item"},
      {"cuda_arch", "90", "cuda_arch=90: expected auto or sm_<number>"},
      // Found by the flags fuzz harness: a space SimpleAtoi skipped did not
      // survive ToString and Parse.
      {"cuda_arch", "sm_8 ", "cuda_arch=sm_8 : expected auto or sm_<number>"},
      {"cuda_arch", "sm_ 8", "expected auto or sm_<number>"},
      {"cuda_arch", "sm_+8", "expected auto or sm_<number>"},
  };
  for (const BadValueCase& c : cases) {
    CompileOptions options;
    absl::Status status = options.Set(c.key, c.value);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.key << "=" << c.value;
    EXPECT_THAT(status.message(), HasSubstr(c.message));
    EXPECT_EQ(options, CompileOptions()) << "a failed Set must not change the options";
  }
}

TEST(CompileOptionsTest, ParseRejectsItemWithoutEquals) {
  absl::StatusOr<CompileOptions> parsed = CompileOptions::Parse("fast_math=true checked");
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("'checked': expected key=value"));
}

TEST(CompileOptionsTest, ParseAcceptsExtraWhitespace) {
  absl::StatusOr<CompileOptions> parsed = CompileOptions::Parse("  opt_level=0 \n threads=2 ");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->opt_level, 0);
  EXPECT_EQ(parsed->threads, 2);
}

}  // namespace
}  // namespace rk::compiler
