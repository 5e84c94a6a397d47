#include "tools/input_files.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "compiler/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::tools {
namespace {

using ::testing::HasSubstr;

std::string Write(const std::string& name, const std::string& bytes) {
  const std::string path = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") +
                           "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A version-1 .npy file: magic, version, header length, the header padded
// with spaces to a multiple of 64 bytes (ending in a newline), the data.
std::string Npy(const std::string& descr, const std::string& shape, const std::string& data,
                const std::string& fortran = "False") {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + fortran +
                       ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

std::string Floats(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

compiler::Graph TwoByThree() {
  absl::StatusOr<compiler::Graph> g =
      compiler::Parse("graph @g(%x: f32[2,3]) {\n  %y = relu(%x) : f32[2,3]\n  return %y\n}\n");
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

TEST(InputFilesTest, ReadsNpyRawAndChecksTheType) {
  const compiler::Graph g = TwoByThree();
  const std::string data = Floats({1, 2, 3, 4, 5, 6.5f});
  absl::StatusOr<std::vector<compiler::HostTensor>> npy =
      ReadInputFiles(g, {Write("x.npy", Npy("<f4", "(2, 3)", data))});
  ASSERT_TRUE(npy.ok()) << npy.status();
  EXPECT_EQ((*npy)[0].GetDouble(5), 6.5);
  absl::StatusOr<std::vector<compiler::HostTensor>> raw = ReadInputFiles(g, {Write("x.bin", data)});
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ((*raw)[0].GetDouble(5), 6.5);

  auto error = [&](const std::string& name, const std::string& bytes) {
    absl::StatusOr<std::vector<compiler::HostTensor>> r = ReadInputFiles(g, {Write(name, bytes)});
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(r.status().message());
  };
  EXPECT_THAT(error("t.npy", Npy("<f4", "(3, 2)", data)),
              HasSubstr("t.npy: holds f32[3,2], but input %x is f32[2,3]"));
  EXPECT_THAT(error("d.npy", Npy("<f8", "(2, 3)", data + data)),
              HasSubstr("holds f64[2,3], but input %x is f32[2,3]"));
  EXPECT_THAT(error("f.npy", Npy("<f4", "(2, 3)", data, "True")), HasSubstr("Fortran-order"));
  EXPECT_THAT(error("u.npy", Npy("|u1", "(6,)", "abcdef")), HasSubstr("NumPy dtype '|u1'"));
  EXPECT_THAT(error("s.npy", Npy("<f4", "(2, 3)", data.substr(4))),
              HasSubstr("20 data bytes for f32[2,3], which needs 24"));
  EXPECT_THAT(error("m.npy", "not numpy"), HasSubstr("no \\x93NUMPY magic"));
  EXPECT_THAT(error("short.bin", data.substr(1)), HasSubstr("23 bytes, but input %x (f32[2,3]) needs 24"));
  EXPECT_THAT(error("p.pb", "\xff\xff"), HasSubstr("not an ONNX TensorProto"));
}

TEST(InputFilesTest, OneFilePerInput) {
  absl::StatusOr<std::vector<compiler::HostTensor>> r = ReadInputFiles(TwoByThree(), {});
  EXPECT_THAT(r.status().message(), HasSubstr("the graph has 1 inputs, 0 files given"));
}

}  // namespace
}  // namespace rk::tools
