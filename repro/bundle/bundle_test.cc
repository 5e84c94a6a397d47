#include "repro/bundle/bundle.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/seeded_inputs.h"
#include "gtest/gtest.h"
#include "repro/bundle/environment.h"
#include "repro/store/local_store.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;
using compiler::DType;
using compiler::GraphBuilder;
using compiler::HostTensor;
using compiler::NodeId;
using compiler::Op;
using compiler::TensorType;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// relu(x) + w + c, with c a 100-element constant that goes to blobs/.
compiler::Graph TestGraph() {
  GraphBuilder b("block");
  NodeId x = b.Input("x", TensorType(DType::kF32, {4, 100}));
  NodeId w = b.Input("w", TensorType(DType::kF32, {100}));
  NodeId r = *b.Unary(Op::kRelu, x);
  NodeId c = *b.Constant(HostTensor::Random(TensorType(DType::kF32, {100}), 7), "c");
  NodeId s = *b.Binary(Op::kAdd, r, w);
  NodeId t = *b.Binary(Op::kAdd, s, c);
  EXPECT_TRUE(b.Output(t).ok());
  absl::StatusOr<compiler::Graph> g = b.Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = (root_ / "bug").string();

    bundle_.graph = TestGraph();
    ASSERT_TRUE(bundle_.options.Apply({"fast_math=true", "faults=relu:accuracy"}).ok());
    for (NodeId id : bundle_.graph.inputs()) {
      BundleInput in;
      in.name = bundle_.graph.DisplayName(id);
      in.type = bundle_.graph.type(id);
      bundle_.inputs.push_back(in);
    }
    // w comes from a recipe, x is stored.
    bundle_.inputs[1].source = BundleInput::Source::kRandom;
    bundle_.inputs[1].seed = 99;
    bundle_.inputs[1].random.distribution = compiler::RandomSpec::Distribution::kNormal;
    bundle_.inputs[1].random.low = 0.5;
    bundle_.inputs[1].random.high = 2.0;
    values_.push_back(HostTensor::Random(bundle_.inputs[0].type, 1));
    values_.push_back(
        HostTensor::Random(bundle_.inputs[1].type, 99, bundle_.inputs[1].random));

    bundle_.expected.kind = VerdictKind::kAccuracy;
    bundle_.expected.signature = AccuracySignature("miscompile", "relu", "f32");
    bundle_.expected.message = "output 0 rmse 3.1e-2";
    bundle_.expected.accuracy_subkind = "miscompile";
    OutputVerdict out;
    out.index = 0;
    out.node = "t";
    out.op = "add";
    out.dtype = "f32";
    out.metrics.elements = 400;
    out.metrics.judgement = Judgement::kFail;
    out.metrics.reason = "rmse 3.1e-2 vs 2.0e-7";
    bundle_.expected.outputs.push_back(out);
    bundle_.tol = 1e-3;
    bundle_.timeout_seconds = 3;
    bundle_.environment = CollectEnvironment();
    bundle_.provenance["tool"] = "reprokit capture model.rk -o bug";
  }

  Digest XDigest() { return LoadBundle(dir_)->bundle.inputs[0].sha256; }

  std::string BlobPath(const Digest& d) {
    auto store = LocalStore::Open((fs::path(dir_) / "blobs").string());
    return (*store)->ObjectPath(d);
  }

  // Parses repro.json, lets `edit` change it, writes it back.
  template <typename F>
  void EditJson(F edit) {
    fs::path p = fs::path(dir_) / "repro.json";
    absl::StatusOr<Json> j = ParseJson(ReadFile(p));
    ASSERT_TRUE(j.ok()) << j.status();
    edit(*j);
    WriteFile(p, j->DumpPretty());
  }

  fs::path root_;
  std::string dir_;
  Bundle bundle_;
  std::vector<HostTensor> values_;
};

TEST_F(BundleTest, RoundTripIsExact) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->warnings.empty()) << loaded->warnings[0];
  const Bundle& b = loaded->bundle;
  EXPECT_EQ(b.graph, bundle_.graph);
  EXPECT_EQ(b.options, bundle_.options);
  ASSERT_EQ(loaded->inputs.size(), 2u);
  EXPECT_TRUE(loaded->inputs[0].BitwiseEqual(values_[0]));
  EXPECT_TRUE(loaded->inputs[1].BitwiseEqual(values_[1]));
  EXPECT_EQ(b.inputs[0].source, BundleInput::Source::kBlob);
  EXPECT_EQ(b.inputs[0].byte_size, 1600u);
  EXPECT_EQ(b.inputs[1].source, BundleInput::Source::kRandom);
  EXPECT_EQ(b.inputs[1].seed, 99u);
  EXPECT_EQ(b.expected.kind, VerdictKind::kAccuracy);
  EXPECT_EQ(b.expected.signature, bundle_.expected.signature);
  EXPECT_EQ(b.expected.accuracy_subkind, "miscompile");
  ASSERT_EQ(b.expected.outputs.size(), 1u);
  EXPECT_EQ(b.expected.outputs[0].metrics.reason, "rmse 3.1e-2 vs 2.0e-7");
  EXPECT_TRUE(b.judged);
  EXPECT_EQ(b.tol, 1e-3);
  EXPECT_EQ(b.timeout_seconds, 3) << "capture's --timeout travels with the bundle";
  EXPECT_EQ(b.policy, "torch");
  EXPECT_EQ(b.environment, bundle_.environment);
  EXPECT_EQ(b.provenance.GetString("tool").value(), "reprokit capture model.rk -o bug");
  EXPECT_TRUE(b.provenance.GetString("created_at").ok());
  EXPECT_EQ(loaded->hash, BundleHash(b));

  std::string graph_text = ReadFile(fs::path(dir_) / "graph.rk");
  EXPECT_NE(graph_text.find("sha256:"), std::string::npos) << graph_text;
  std::string json = ReadFile(fs::path(dir_) / "repro.json");
  EXPECT_NE(json.find("\"format\": \"reprokit-bundle\""), std::string::npos);
  EXPECT_NE(json.find("\"text\": \"fast_math=true faults=relu:accuracy\""), std::string::npos);
  std::string readme = ReadFile(fs::path(dir_) / "README.md");
  EXPECT_NE(readme.find("accuracy:miscompile:relu:f32"), std::string::npos) << readme;
  EXPECT_NE(readme.find("reprokit pack . -o bug.tar.zst"), std::string::npos);
  // Nothing but the bundle is left beside it.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(root_)) entries += e.exists();
  EXPECT_EQ(entries, 1);
}

TEST_F(BundleTest, DeferredPrecisionCheckRoundTripsAndIsWrittenOnlyWhenDeferred) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EXPECT_EQ(ReadFile(fs::path(dir_) / "repro.json").find("precision_check"), std::string::npos);
  EXPECT_FALSE(LoadBundle(dir_)->bundle.precision_check_deferred);
  bundle_.expected.accuracy_subkind = "unknown";
  bundle_.expected.signature = AccuracySignature("unknown", "relu", "f32");
  bundle_.precision_check_deferred = true;
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EXPECT_NE(ReadFile(fs::path(dir_) / "repro.json").find("\"precision_check\": \"deferred\""),
            std::string::npos);
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->bundle.precision_check_deferred);
  EXPECT_EQ(loaded->bundle.expected.signature.ToString(), "accuracy:unknown:relu:f32");
  // A judgement that ran the check names a subkind; op and dtype must agree.
  EXPECT_TRUE(MatchesExpected(loaded->bundle, AccuracySignature("unknown", "relu", "f32")));
  EXPECT_TRUE(MatchesExpected(loaded->bundle, AccuracySignature("miscompile", "relu", "f32")));
  EXPECT_TRUE(MatchesExpected(loaded->bundle, AccuracySignature("precision", "relu", "f32")));
  EXPECT_FALSE(MatchesExpected(loaded->bundle, AccuracySignature("miscompile", "add", "f32")));
  EXPECT_FALSE(MatchesExpected(loaded->bundle, AccuracySignature("miscompile", "relu", "f16")));
  loaded->bundle.precision_check_deferred = false;
  EXPECT_FALSE(MatchesExpected(loaded->bundle, AccuracySignature("miscompile", "relu", "f32")));
  EditJson([](Json& j) { j["expected"].Set("precision_check", "later"); });
  absl::StatusOr<LoadedBundle> bad = LoadBundle(dir_);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  EXPECT_NE(bad.status().message().find("precision_check"), std::string::npos) << bad.status();
}

TEST_F(BundleTest, HashIgnoresNamesAndProvenanceButNotOptions) {
  std::string h = BundleHash(bundle_);
  Bundle other = bundle_;
  other.provenance["tool"] = "something else";
  other.graph.set_name("renamed");
  EXPECT_EQ(BundleHash(other), h);
  ASSERT_TRUE(other.options.Set("fast_math", "false").ok());
  EXPECT_NE(BundleHash(other), h);
}

TEST_F(BundleTest, ReplacesABundleButRefusesOtherDirectories) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  bundle_.expected.message = "second";
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EXPECT_EQ(LoadBundle(dir_)->bundle.expected.message, "second");

  fs::path other = root_ / "src";
  fs::create_directories(other);
  WriteFile(other / "main.cc", "int main() {}");
  absl::Status s = WriteBundle(bundle_, values_, other.string());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_EQ(ReadFile(other / "main.cc"), "int main() {}");
}

TEST_F(BundleTest, RejectsValuesThatDoNotMatch) {
  values_[0] = HostTensor::Random(TensorType(DType::kF16, {4, 100}), 1);
  EXPECT_EQ(WriteBundle(bundle_, values_, dir_).code(), absl::StatusCode::kInvalidArgument);
  values_[0] = HostTensor::Random(bundle_.inputs[0].type, 1);
  values_[1] = HostTensor::Random(bundle_.inputs[1].type, 100);  // not the recipe
  EXPECT_EQ(WriteBundle(bundle_, values_, dir_).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(BundleTest, CorruptBlobIsDataLoss) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  std::string path = BlobPath(XDigest());
  std::string bytes = ReadFile(path);
  bytes[bytes.size() / 2] ^= 0x5a;
  fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
  WriteFile(path, bytes);
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
  EXPECT_NE(loaded.status().message().find("input %x"), absl::string_view::npos);
}

TEST_F(BundleTest, TruncatedBlobIsDataLoss) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  std::string path = BlobPath(XDigest());
  fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
  fs::resize_file(path, fs::file_size(path) - 10);
  EXPECT_EQ(LoadBundle(dir_).status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(BundleTest, WrongSizedBlobIsDataLoss) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  auto store = LocalStore::Open((fs::path(dir_) / "blobs").string());
  absl::StatusOr<Digest> small = (*store)->Put("only a few bytes");
  ASSERT_TRUE(small.ok());
  EditJson([&](Json& j) {
    j["inputs"].mutable_array()[0].Set("sha256", small->Hex());
  });
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
  EXPECT_NE(loaded.status().message().find("holds 16 bytes, expected 1600"),
            absl::string_view::npos)
      << loaded.status();
}

TEST_F(BundleTest, UnknownVersionIsRejected) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EditJson([](Json& j) { j["version"] = 2; });
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(loaded.status().message().find("version: unsupported bundle version 2"),
            absl::string_view::npos)
      << loaded.status();
}

// Bad repro.json values are refused with the field named, not accepted silently.
TEST_F(BundleTest, NonFiniteInputRangesAndContradictoryKindsAreRejected) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  const fs::path p = fs::path(dir_) / "repro.json";
  const std::string original = ReadFile(p);
  struct Edit {
    std::string from, to, message;
  };
  for (const Edit& e : std::vector<Edit>{
           {"\"low\": 0.5", "\"low\": \"NaN\"", "low: must be a finite number"},
           {"\"high\": 2.0", "\"high\": \"Infinity\"", "high: must be a finite number"},
           {"\"high\": 2.0", "\"high\": 0.25", "high: must not be below low"},
           {"\"kind\": \"accuracy\"", "\"kind\": \"crash\"", "contradicts kind 'crash'"}}) {
    std::string text = original;
    const size_t at = text.find(e.from);
    ASSERT_NE(at, std::string::npos) << e.from;
    text.replace(at, e.from.size(), e.to);
    WriteFile(p, text);
    absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << e.to;
    EXPECT_NE(loaded.status().message().find(e.message), absl::string_view::npos)
        << e.to << ": " << loaded.status();
  }
}

TEST_F(BundleTest, MissingGraphIsNotFound) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  fs::remove(fs::path(dir_) / "graph.rk");
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(loaded.status().message().find("graph.rk: missing"), absl::string_view::npos);
  EXPECT_EQ(LoadBundle((root_ / "nope").string()).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(BundleTest, GraphAndInputsThatDisagreeAreRejected) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EditJson([](Json& j) { j["inputs"].mutable_array()[0].Set("shape", Json::MakeArray({4, 99})); });
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(loaded.status().message().find("does not fit f32[4,99]"), absl::string_view::npos)
      << loaded.status();

  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EditJson([](Json& j) { j["inputs"].mutable_array()[1].Set("name", "v"); });
  loaded = LoadBundle(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(loaded.status().message().find("repro.json names it 'v', the graph '%w'"),
            absl::string_view::npos)
      << loaded.status();

  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EditJson([](Json& j) { j["inputs"].mutable_array().pop_back(); });
  loaded = LoadBundle(dir_);
  EXPECT_NE(loaded.status().message().find("the graph has 2 inputs but repro.json lists 1"),
            absl::string_view::npos)
      << loaded.status();

  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EditJson([](Json& j) { j["compile_options"].Set("text", "fast_math=false"); });
  loaded = LoadBundle(dir_);
  EXPECT_NE(loaded.status().message().find("compile_options.values: disagrees"),
            absl::string_view::npos)
      << loaded.status();
}

TEST_F(BundleTest, MissingBlobFallsBackToSeededDataWithAWarning) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  fs::remove(BlobPath(XDigest()));
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_NE(loaded->warnings[0].find("input %x: blob"), std::string::npos);
  EXPECT_NE(loaded->warnings[0].find("seeded random data"), std::string::npos);
  HostTensor expected = HostTensor::Random(bundle_.inputs[0].type, compiler::SeedForInput(0, 0),
                                           compiler::DefaultInputSpec(DType::kF32));
  EXPECT_TRUE(loaded->inputs[0].BitwiseEqual(expected));
  EXPECT_TRUE(LoadBundle(dir_)->inputs[0].BitwiseEqual(loaded->inputs[0]));
}

TEST_F(BundleTest, EditedBundleLoadsWithAWarning) {
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EditJson([](Json& j) { j["compile_options"] = Json::MakeObject(); });
  EXPECT_FALSE(LoadBundle(dir_).ok());  // text is required
  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EditJson([](Json& j) {
    Json opts = Json::MakeObject();
    opts["text"] = "";
    j["compile_options"] = opts;
  });
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_NE(loaded->warnings[0].find("edited after it was written"), std::string::npos);
}

// Defect: a capture or minify killed with SIGKILL while writing OUT left a
// .tmp.OUT.new.<pid>.* directory beside OUT for good. The next write of OUT
// removes those of processes that are gone, and keeps a live writer's.
TEST_F(BundleTest, StagingLeftOverByAKilledWriterIsRemoved) {
  pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  fs::path stale = root_ / absl::StrCat(".tmp.bug.new.", gone, ".12345");
  fs::create_directories(stale / "blobs" / "cas");
  WriteFile(stale / "graph.rk", "partial");
  fs::path live = root_ / absl::StrCat(".tmp.bug.new.", ::getppid(), ".777");
  fs::create_directories(live);

  ASSERT_TRUE(WriteBundle(bundle_, values_, dir_).ok());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  fs::remove_all(live);

  // Killed between Publish's two renames: the old bundle is aside and OUT is
  // missing; it comes back before anything else happens to OUT.
  fs::path aside = root_ / absl::StrCat(".tmp.bug.old.", gone, ".99");
  fs::rename(dir_, aside);
  Bundle other = bundle_;
  ASSERT_TRUE(WriteBundle(other, values_, dir_).ok());
  EXPECT_FALSE(fs::exists(aside));
  EXPECT_TRUE(LoadBundle(dir_).ok());
  for (const fs::directory_entry& e : fs::directory_iterator(root_)) {
    EXPECT_NE(e.path().filename().string().rfind(".tmp.", 0), 0u) << e.path();
  }
}

TEST(EnvironmentTest, RecordsVersionsButNoHostOrUserNames) {
  Json env = CollectEnvironment();
  EXPECT_TRUE(env.GetString("reprokit_version").ok());
  EXPECT_TRUE(env.GetString("llvm_version").ok());
  EXPECT_FALSE(env.GetString("cpu_model").value().empty());
  EXPECT_TRUE(env.Contains("gpu"));
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string text = env.Dump();
  if (std::string(host).size() >= 6) {
    EXPECT_EQ(text.find(host), std::string::npos) << text;
  }
}

TEST(EnvironmentTest, CommandLineQuotesAndHidesHome) {
  setenv("HOME", "/home/alice", 1);
  EXPECT_EQ(CommandLineText({"reprokit", "capture", "/home/alice/m.rk", "--opt", "a b", "it's"}),
            "reprokit capture ~/m.rk --opt 'a b' 'it'\\''s'");
  EXPECT_EQ(CommandLineText({"/home/alicex/m.rk"}), "/home/alicex/m.rk");
}

}  // namespace
}  // namespace rk::repro
