#include "minifier/script_interestingness.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::minifier {
namespace {

std::string Script(const std::string& name, const std::string& body) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

Candidate Relu() {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(
      "graph @g(%x: f32[4]) {\n  %r = relu(%x) : f32[4]\n  return %r\n}\n");
  EXPECT_TRUE(g.ok());
  return Candidate{*g, {compiler::HostTensor::Zeros(g->type(compiler::NodeId(0)))}};
}

// Writes the graph's text only, which is all the scripts below read.
absl::Status WriteGraph(const Candidate& c, const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/graph.rk") << c.graph.name() << "\n";
  return absl::OkStatus();
}

TEST(ScriptInterestingnessTest, ExitZeroIsInteresting) {
  const std::string scratch = std::getenv("TEST_TMPDIR");
  ScriptInterestingness yes(Script("yes.sh", "test -f \"$1/graph.rk\""), scratch, WriteGraph, 10);
  absl::StatusOr<InterestingnessResult> r = yes.Judge(Relu());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->interesting);
  // The candidate's directory is gone afterwards.
  EXPECT_FALSE(std::filesystem::exists(scratch + "/candidate-0"));

  ScriptInterestingness no(Script("no.sh", "exit 3"), scratch, WriteGraph, 10);
  r = no.Judge(Relu());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->interesting);
  EXPECT_EQ(r->signature, "script:exit 3");

  ScriptInterestingness slow(Script("slow.sh", "sleep 30"), scratch, WriteGraph, 0.3);
  r = slow.Judge(Relu());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->interesting);
  EXPECT_EQ(r->signature, "script:timeout");
}

TEST(ScriptInterestingnessTest, MissingScriptIsAnError) {
  ScriptInterestingness missing("/nonexistent/test.sh", std::getenv("TEST_TMPDIR"), WriteGraph, 0);
  absl::StatusOr<InterestingnessResult> r = missing.Judge(Relu());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("interestingness test"), std::string::npos);
}

}  // namespace
}  // namespace rk::minifier
