#include "repro/bisect/option_bisect.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "repro/bisect/bisect_test_util.h"

namespace rk::repro {
namespace {

constexpr char kRelu[] = R"(graph @g(%x: f32[4,8]) {
  %n = neg(%x) : f32[4,8]
  %r = relu(%n) : f32[4,8]
  %y = add(%r, %x) : f32[4,8]
  return %y
}
)";

constexpr char kNormalize[] = R"(graph @g(%x: f32[4,8]) {
  %s = reduce_sum(%x) {axes=[1], keepdim=true} : f32[4,1]
  %y = sub(%x, %s) : f32[4,8]
  return %y
}
)";

compiler::CompileOptions Options(const std::string& text) {
  absl::StatusOr<compiler::CompileOptions> o = compiler::CompileOptions::Parse(text);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : compiler::CompileOptions();
}

std::vector<std::string> Names(const std::vector<OptionItem>& items) {
  std::vector<std::string> names;
  for (const OptionItem& item : items) names.push_back(item.ToString());
  return names;
}

TEST(OptionItemsTest, SplitsListsIntoElements) {
  const compiler::CompileOptions good = Options("disable_passes=cse,dce faults=relu:accuracy");
  const compiler::CompileOptions bad =
      Options("disable_passes=dce fast_math=true faults=relu:accuracy,exp:compile_error "
              "dump_dir=/tmp/x");
  const std::vector<OptionItem> items = DifferingItems(good, bad);
  EXPECT_EQ(Names(items), (std::vector<std::string>{"disable_passes-=cse", "fast_math=true",
                                                    "faults+=exp:compile_error"}));
  absl::StatusOr<compiler::CompileOptions> all = ApplyItems(good, items);
  ASSERT_TRUE(all.ok());
  compiler::CompileOptions bad_without_dump = bad;
  bad_without_dump.dump_dir.clear();
  EXPECT_EQ(all->ToString(), bad_without_dump.ToString());
  absl::StatusOr<compiler::CompileOptions> none = ApplyItems(good, {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->ToString(), good.ToString());
}

TEST(OptionBisectTest, NamesTheOneFaultAmongManyDifferences) {
  absl::StatusOr<std::unique_ptr<TestTarget>> t = MakeTestTarget(
      kRelu,
      "disable_passes=cse,canonicalize fast_math=true vector_width=4 threads=2 "
      "faults=exp:compile_error,relu:accuracy");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ((*t)->verdict.kind, VerdictKind::kAccuracy) << (*t)->verdict.message;
  FailureProbe probe((*t)->oracle.get(), &(*t)->target);
  absl::StatusOr<OptionBisectResult> r = BisectOptions(probe, compiler::CompileOptions());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->good_fails);
  EXPECT_EQ(r->differing.size(), 7u);
  EXPECT_EQ(Names(r->minimal), std::vector<std::string>{"faults+=relu:accuracy"});
  EXPECT_EQ(r->minimal_options.ToString(), "faults=relu:accuracy");
  EXPECT_NE(r->ToText().find("faults=relu:accuracy is enough"), std::string::npos)
      << r->ToText();
}

// No fault at all: a numerical regression that only fast_math causes. The
// terms of this long sum cancel exactly; the default numerics accumulate in
// f64 (exact), fast_math reassociates in f32 (off by ~0.4).
constexpr char kCancellingSum[] = R"(graph @g(%x: f32[4,32768]) {
  %c = full() {dtype=f32, shape=[4,32768], value=100.0} : f32[4,32768]
  %a = add(%x, %c) : f32[4,32768]
  %n = neg(%a) : f32[4,32768]
  %j = concat(%a, %n) {axis=1} : f32[4,65536]
  %s = reduce_sum(%j) {axes=[1], keepdim=false} : f32[4]
  return %s
}
)";

TEST(OptionBisectTest, NamesFastMathForAPrecisionRegression) {
  absl::StatusOr<std::unique_ptr<TestTarget>> t = MakeTestTarget(
      kCancellingSum, "disable_passes=cse fast_math=true vector_width=4 threads=2");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ((*t)->verdict.kind, VerdictKind::kAccuracy) << (*t)->verdict.message;
  EXPECT_EQ((*t)->verdict.signature.ToString(), "accuracy:precision:reduce_sum:f32");
  FailureProbe probe((*t)->oracle.get(), &(*t)->target);
  absl::StatusOr<OptionBisectResult> r = BisectOptions(probe, compiler::CompileOptions());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->good_fails);
  EXPECT_EQ(r->differing.size(), 4u);
  EXPECT_EQ(Names(r->minimal), std::vector<std::string>{"fast_math=true"});
  EXPECT_NE(r->ToText().find("fast_math=true is enough"), std::string::npos) << r->ToText();
}

TEST(OptionBisectTest, FindsTwoChangesNeededTogether) {
  // fuse:wrong_index only bites when fusion runs: re-enabling fuse and
  // planting the fault are both needed; fast_math is noise.
  absl::StatusOr<std::unique_ptr<TestTarget>> t =
      MakeTestTarget(kNormalize, "threads=2 faults=fuse:wrong_index");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ((*t)->verdict.kind, VerdictKind::kAccuracy) << (*t)->verdict.message;
  FailureProbe probe((*t)->oracle.get(), &(*t)->target);
  absl::StatusOr<OptionBisectResult> r =
      BisectOptions(probe, Options("disable_passes=fuse"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Names(r->minimal),
            (std::vector<std::string>{"disable_passes-=fuse", "faults+=fuse:wrong_index"}));
  EXPECT_NE(r->ToText().find("are needed together"), std::string::npos);
}

TEST(OptionBisectTest, GoodOptionsThatFailTooAreReported) {
  absl::StatusOr<std::unique_ptr<TestTarget>> t =
      MakeTestTarget(kRelu, "fast_math=true faults=relu:accuracy");
  ASSERT_TRUE(t.ok()) << t.status();
  FailureProbe probe((*t)->oracle.get(), &(*t)->target);
  absl::StatusOr<OptionBisectResult> r = BisectOptions(probe, Options("faults=relu:accuracy"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->good_fails);
  EXPECT_TRUE(r->minimal.empty());
  EXPECT_EQ(r->judgements, 1);
}

}  // namespace
}  // namespace rk::repro
