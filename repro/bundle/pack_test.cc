#include "repro/bundle/pack.h"

#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler/ir/builder.h"
#include "gtest/gtest.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/capture.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;
using compiler::DType;
using compiler::HostTensor;
using compiler::TensorType;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Every regular file under `root`, by relative path.
std::map<std::string, std::string> Files(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out[fs::relative(e.path(), root).string()] = ReadFile(e.path());
  }
  return out;
}

// A ustar header written independently of pack.cc.
std::string TarHeader(const std::string& name, char type, size_t size) {
  std::string h(512, '\0');
  std::memcpy(&h[0], name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(&h[100], 8, "%07o", 0644);
  std::snprintf(&h[108], 8, "%07o", 0);
  std::snprintf(&h[116], 8, "%07o", 0);
  std::snprintf(&h[124], 12, "%011zo", size);
  std::snprintf(&h[136], 12, "%011o", 0);
  h[156] = type;
  std::memcpy(&h[257], "ustar\0" "00", 8);
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  std::snprintf(&h[148], 8, "%06o", sum);
  h[155] = ' ';
  return h;
}

std::string TarFile(const std::string& name, const std::string& data, char type = '0') {
  std::string out = TarHeader(name, type, data.size()) + data;
  out.resize((out.size() + 511) / 512 * 512, '\0');
  return out;
}

std::string Zstd(const std::string& raw) {
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  out.resize(ZSTD_compress(&out[0], out.size(), raw.data(), raw.size(), 3));
  return out;
}

class PackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_ / "a");
    compiler::GraphBuilder b("packed");
    compiler::NodeId x = b.Input("x", TensorType(DType::kF32, {16, 32}));
    compiler::NodeId c =
        *b.Constant(HostTensor::Random(TensorType(DType::kF32, {32}), 3), "bias");
    compiler::NodeId y = *b.Binary(compiler::Op::kAdd, x, c);
    ASSERT_TRUE(b.Output(*b.Unary(compiler::Op::kRelu, y)).ok());
    compiler::Graph g = *b.Build();
    Verdict v;
    v.kind = VerdictKind::kCompileError;
    v.signature = CompileErrorSignature("INTERNAL", "boom");
    bundle_ = (root_ / "a" / "bug").string();
    ASSERT_TRUE(Capture(g, {HostTensor::Random(TensorType(DType::kF32, {16, 32}), 9)}, {}, v,
                        bundle_)
                    .ok());
  }

  absl::Status UnpackBytes(const std::string& raw_tar, const std::string& name = "evil") {
    fs::path archive = root_ / (name + ".tar.zst");
    WriteFile(archive, Zstd(raw_tar));
    return UnpackBundle(archive.string(), (root_ / (name + "_out")).string()).status();
  }

  fs::path root_;
  std::string bundle_;
};

TEST_F(PackTest, RoundTripIsByteIdenticalAndDeterministic) {
  std::string archive = (root_ / "bug.tar.zst").string();
  absl::StatusOr<PackStats> packed = PackBundle(bundle_, archive);
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_GE(packed->files, 4);  // graph.rk, repro.json, README.md, blobs
  EXPECT_GT(packed->archive_bytes, 0u);

  fs::create_directories(root_ / "b");
  std::string out = (root_ / "b" / "bug").string();
  absl::StatusOr<PackStats> unpacked = UnpackBundle(archive, out);
  ASSERT_TRUE(unpacked.ok()) << unpacked.status();
  EXPECT_EQ(unpacked->files, packed->files);
  EXPECT_EQ(unpacked->file_bytes, packed->file_bytes);
  EXPECT_EQ(Files(out), Files(bundle_));
  ASSERT_TRUE(LoadBundle(out).ok());

  std::string again = (root_ / "again.tar.zst").string();
  ASSERT_TRUE(PackBundle(out, again).ok());
  EXPECT_EQ(ReadFile(again), ReadFile(archive));
  // Nothing else left beside the outputs.
  EXPECT_EQ(std::distance(fs::directory_iterator(root_ / "b"), fs::directory_iterator()), 1);
}

TEST_F(PackTest, RefusesToOverwrite) {
  std::string archive = (root_ / "bug.tar.zst").string();
  ASSERT_TRUE(PackBundle(bundle_, archive).ok());
  absl::Status s = UnpackBundle(archive, bundle_).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
  fs::create_directories(root_ / "empty");
  EXPECT_TRUE(UnpackBundle(archive, (root_ / "empty").string()).ok());
}

TEST_F(PackTest, CorruptOrTruncatedArchiveIsDataLoss) {
  std::string archive = (root_ / "bug.tar.zst").string();
  ASSERT_TRUE(PackBundle(bundle_, archive).ok());
  std::string bytes = ReadFile(archive);

  std::string corrupt = bytes;
  corrupt[corrupt.size() / 2] ^= 0x40;
  WriteFile(root_ / "corrupt.tar.zst", corrupt);
  absl::Status s = UnpackBundle((root_ / "corrupt.tar.zst").string(), (root_ / "c").string())
                       .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_FALSE(fs::exists(root_ / "c"));

  WriteFile(root_ / "short.tar.zst", bytes.substr(0, bytes.size() - 20));
  s = UnpackBundle((root_ / "short.tar.zst").string(), (root_ / "t").string()).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("truncated"), absl::string_view::npos) << s;

  WriteFile(root_ / "junk.tar.zst", "not an archive at all");
  s = UnpackBundle((root_ / "junk.tar.zst").string(), (root_ / "j").string()).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;

  std::string end(1024, '\0');
  std::string bad_checksum = TarHeader("x/", '5', 0);
  bad_checksum[0] = 'y';
  EXPECT_EQ(UnpackBytes(bad_checksum + end, "sum").code(), absl::StatusCode::kDataLoss);
  // A tar that is well formed but holds no bundle.
  s = UnpackBytes(TarHeader("x/", '5', 0) + TarFile("x/hello.txt", "hi") + end, "nobundle");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("does not hold a valid bundle"), absl::string_view::npos);
  EXPECT_FALSE(fs::exists(root_ / "nobundle_out"));
}

TEST_F(PackTest, UnsafeEntriesAreRejected) {
  std::string end(1024, '\0');
  std::string top = TarHeader("x/", '5', 0);
  struct Case {
    std::string tar;
    std::string message;
  } cases[] = {
      {TarFile("../evil", "x") + end, "unsafe path: ../evil"},
      {top + TarFile("x/../../evil", "x") + end, "unsafe path"},
      {TarFile("/etc/evil", "x") + end, "absolute path"},
      {top + TarFile("x/./a", "x") + end, "unsafe path"},
      {top + TarFile("y/a", "x") + end, "outside the top-level directory"},
      {top + TarHeader("x/link", '2', 0) + end, "no links"},
      {top + TarHeader("x/hard", '1', 0) + end, "no links"},
      {top + TarFile("x/a", "1") + TarFile("x/a", "2") + end, "duplicate entry"},
  };
  int i = 0;
  for (const Case& c : cases) {
    absl::Status s = UnpackBytes(c.tar, "case" + std::to_string(i++));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.message << ": " << s;
    EXPECT_NE(s.message().find(c.message), absl::string_view::npos) << s;
  }
  EXPECT_FALSE(fs::exists(root_.parent_path() / "evil"));
  EXPECT_FALSE(fs::exists(root_ / "evil"));
}

TEST_F(PackTest, RefusesToPackSymlinksOrNonBundles) {
  fs::create_symlink("/etc/passwd", fs::path(bundle_) / "link");
  EXPECT_EQ(PackBundle(bundle_, (root_ / "x.tar.zst").string()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(root_ / "x.tar.zst"));
  EXPECT_FALSE(PackBundle((root_ / "a").string(), (root_ / "y.tar.zst").string()).ok());
}

}  // namespace
}  // namespace rk::repro
