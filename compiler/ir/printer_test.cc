#include "compiler/ir/printer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "base/sha256.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/half.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;

// Golden files live in compiler/ir/testdata/ and are read through runfiles.
// REPROKIT_UPDATE_GOLDENS=1 rewrites them in the source tree instead of
// comparing (run with `bazel run`, or `bazel test --test_env=...`, where the
// runfiles are links into the source tree).
std::string GoldenPath(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir ? srcdir : ".") + "/reprokit/compiler/ir/testdata/" + name;
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const char* update = std::getenv("REPROKIT_UPDATE_GOLDENS");
  if (update != nullptr && std::string(update) == "1") {
    std::string target;
    if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
      target = std::string(ws) + "/compiler/ir/testdata/" + name;
    } else {
      char resolved[PATH_MAX];
      ASSERT_NE(realpath(GoldenPath(name).c_str(), resolved), nullptr)
          << "new golden " << name << ": create it with `bazel run` and REPROKIT_UPDATE_GOLDENS=1";
      target = resolved;
    }
    std::ofstream(target, std::ios::binary) << actual;
    std::cerr << "updated " << target << "\n";
    return;
  }
  std::ifstream in(GoldenPath(name), std::ios::binary);
  ASSERT_TRUE(in) << "missing golden " << GoldenPath(name)
                  << " (REPROKIT_UPDATE_GOLDENS=1 creates it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden " << name
                                    << " differs; REPROKIT_UPDATE_GOLDENS=1 rewrites it";
}

// The softmax block of docs/FORMAT.md's example.
Graph SoftmaxBlock() {
  GraphBuilder b("block");
  NodeId x = b.Input("x", TensorType(DType::kF32, {8, 128}));
  NodeId w = b.Input("w", TensorType(DType::kF32, {128}));
  NodeId m = *b.Add(Op::kReduceMax, {x},
                    {{"axes", std::vector<int64_t>{1}}, {"keepdim", true}}, "m");
  NodeId d = *b.Add(Op::kSub, {x, m}, {}, "d");
  NodeId e = *b.Add(Op::kExp, {d}, {}, "e");
  NodeId s = *b.Add(Op::kReduceSum, {e},
                    {{"axes", std::vector<int64_t>{1}}, {"keepdim", true}}, "s");
  NodeId y = *b.Add(Op::kDiv, {e, s}, {}, "y");
  NodeId o = *b.Add(Op::kMul, {y, w});  // unnamed: prints as its id
  (void)b.Output(o);
  (void)b.Output(m);
  return *b.Build();
}

Graph ConstantsGraph() {
  GraphBuilder b("constants");
  NodeId x = b.Input("x", TensorType(DType::kF32, {3}));
  HostTensor f32(TensorType(DType::kF32, {3}));
  f32.data<float>()[0] = 0.1f;
  f32.data<float>()[1] = -0.0f;
  f32.data<float>()[2] = std::numeric_limits<float>::denorm_min();
  NodeId c = *b.Constant(f32, "c");
  HostTensor f16(TensorType(DType::kF16, {2, 2}));
  f16.data<uint16_t>()[0] = FloatToHalf(0.1f);
  f16.data<uint16_t>()[1] = 0x7c00;  // inf
  f16.data<uint16_t>()[2] = 0xfe00;  // -nan
  f16.data<uint16_t>()[3] = 0x0001;  // smallest subnormal
  (void)b.Constant(f16, "h");
  HostTensor bf(TensorType(DType::kBF16, {2}));
  bf.data<uint16_t>()[0] = FloatToBFloat16(3.140625f);
  bf.data<uint16_t>()[1] = 0xff80;  // -inf
  (void)b.Constant(bf, "bf");
  HostTensor f64(TensorType(DType::kF64, {}));
  f64.data<double>()[0] = 1e100;
  (void)b.Constant(f64, "d");
  HostTensor i64(TensorType(DType::kI64, {2}));
  i64.data<int64_t>()[0] = std::numeric_limits<int64_t>::min();
  i64.data<int64_t>()[1] = 42;
  (void)b.Constant(i64, "i");
  HostTensor flags(TensorType(DType::kBool, {2}));
  flags.data<uint8_t>()[1] = 1;
  (void)b.Constant(flags, "flags");
  (void)b.Constant(HostTensor(TensorType(DType::kI32, {0})), "empty");
  NodeId full = *b.Add(Op::kFull, {},
                       {{"value", 1e20}, {"dtype", DType::kF32}, {"shape", std::vector<int64_t>{3}}});
  NodeId sum = *b.Binary(Op::kAdd, x, c);
  (void)b.Output(*b.Binary(Op::kAdd, sum, full));
  return *b.Build();
}

TEST(PrinterTest, SoftmaxBlockGolden) { ExpectGolden("softmax_block.golden", *Print(SoftmaxBlock())); }

TEST(PrinterTest, CanonicalGolden) {
  ExpectGolden("softmax_block_canonical.golden", PrintCanonical(SoftmaxBlock()));
}

TEST(PrinterTest, ConstantsGolden) { ExpectGolden("constants.golden", PrintInline(ConstantsGraph())); }

TEST(PrinterTest, FloatAttributesAlwaysLookLikeFloats) {
  for (auto [value, text] : std::vector<std::pair<double, std::string>>{
           {1.0, "value=1.0"},
           {-0.0, "value=-0.0"},
           {0.1, "value=0.1"},
           {1e20, "value=1e+20"},
           {std::numeric_limits<double>::infinity(), "value=inf"},
           {-std::numeric_limits<double>::quiet_NaN(), "value=-nan"}}) {
    GraphBuilder b;
    (void)b.Output(*b.Full(TensorType(DType::kF32, {}), value));
    EXPECT_THAT(PrintInline(*b.Build()), HasSubstr(text));
  }
}

TEST(PrinterTest, QuotesGraphNamesOutsideTheNameAlphabet) {
  Graph g = SoftmaxBlock();
  g.set_name("my graph\n");
  EXPECT_THAT(PrintInline(g), ::testing::StartsWith("graph @\"my graph\\n\"(%x"));
}

class RecordingSink : public BlobSink {
 public:
  absl::StatusOr<std::string> Put(const HostTensor& tensor) override {
    ++calls;
    auto bytes = tensor.bytes();
    return Sha256Hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  int calls = 0;
};

TEST(PrinterTest, LargeConstantsGoToTheSink) {
  GraphBuilder b;
  NodeId c = *b.Constant(HostTensor::Full(TensorType(DType::kF32, {100}), 1.0), "big");
  (void)b.Output(c);
  Graph g = *b.Build();
  RecordingSink sink;
  PrintOptions options;
  options.sink = &sink;
  absl::StatusOr<std::string> text = Print(g, options);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(sink.calls, 1);
  EXPECT_THAT(*text, ::testing::MatchesRegex(
                         "(.|\n)*value=dense<f32\\[100\\]>sha256:[0-9a-f]{64}\\} : f32\\[100\\](.|\n)*"));
  // Without a sink the printer refuses rather than writing a huge line.
  absl::StatusOr<std::string> refused = Print(g);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("%big has 100 elements"));
  // The canonical form names it by the SHA-256 of its bytes.
  EXPECT_THAT(PrintCanonical(g),
              ::testing::MatchesRegex("(.|\n)*value=dense<f32\\[100\\]>sha256:[0-9a-f]{64}\\}(.|\n)*"));
}

TEST(PrinterTest, CanonicalFormIgnoresNames) {
  Graph a = SoftmaxBlock();
  Graph b = SoftmaxBlock();
  b.set_name("other");
  b.mutable_node(NodeId(2)).name = "renamed";
  EXPECT_EQ(PrintCanonical(a), PrintCanonical(b));
  EXPECT_NE(*Print(a), *Print(b));
}

}  // namespace
}  // namespace rk::compiler
