// Structure of the three kinds of report, made from real inputs: a bundle
// captured from the oracle's verdict on a planted relu fault (the divergence
// analysis and compile run for real), minimized by the minifier; a
// `compile --dump` directory; a short fuzz campaign. Checks the pages are
// well formed (balanced elements, no scripts, nothing fetched), hold the
// expected sections, ids and charts, and escape a graph named %<script>.
// The rendering in a browser is browser_test.sh.
#include "testing/report/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "minifier/minify_bundle.h"
#include "repro/bundle/capture.h"
#include "repro/oracle/oracle.h"
#include "testing/fuzz/campaign.h"
#include "testing/report/campaign_page.h"
#include "testing/report/graph_drawing.h"

namespace rk::report {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(base ? base : "/tmp") / name;
  fs::remove_all(dir);
  return dir.string();
}

constexpr char kGraph[] = R"(graph @"%<script>alert(1)</script>"(%x: f32[16]) {
  %a = exp(%x) : f32[16]
  %r = relu(%a) : f32[16]
  %o = add(%r, %a) : f32[16]
  return %o
})";

// Well formed for what the pages use: every element opened is closed in
// order (void elements and self-closed SVG elements aside), one <html>.
void ExpectWellFormed(const std::string& html) {
  static const std::regex tag(R"(<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>)");
  static const std::vector<std::string> kVoid = {"meta", "br", "img", "input", "link", "hr"};
  std::vector<std::string> stack;
  const std::string body = html.substr(html.find("<html"));
  for (std::sregex_iterator it(body.begin(), body.end(), tag), end; it != end; ++it) {
    const std::string name = (*it)[2];
    if ((*it)[3] == "/" || std::find(kVoid.begin(), kVoid.end(), name) != kVoid.end()) continue;
    if ((*it)[1] == "/") {
      ASSERT_FALSE(stack.empty()) << "stray </" << name << ">";
      ASSERT_EQ(stack.back(), name) << "</" << name << "> closes <" << stack.back() << ">";
      stack.pop_back();
    } else {
      stack.push_back(name);
    }
  }
  EXPECT_TRUE(stack.empty()) << "unclosed <" << (stack.empty() ? "" : stack.back()) << ">";
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("src=\"http")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"http")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
}

std::string Read(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

class ReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    repro::Oracle::Config config;
    config.isolate = false;
    absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle = repro::Oracle::Create(config);
    ASSERT_TRUE(oracle.ok()) << oracle.status();
    oracle_ = oracle->release();
  }
  static void TearDownTestSuite() { delete oracle_; }

  // The planted relu fault, captured with the oracle's verdict.
  std::string CaptureBundle(const std::string& dir) {
    absl::StatusOr<compiler::Graph> g = compiler::Parse(kGraph);
    EXPECT_TRUE(g.ok()) << g.status();
    const std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(*g, 0);
    absl::StatusOr<compiler::CompileOptions> options =
        compiler::CompileOptions::Parse("faults=relu:accuracy");
    EXPECT_TRUE(options.ok());
    absl::StatusOr<repro::Verdict> verdict = oracle_->Judge(*g, inputs, *options);
    EXPECT_TRUE(verdict.ok()) << verdict.status();
    EXPECT_EQ(verdict->kind, repro::VerdictKind::kAccuracy) << verdict->message;
    repro::CaptureOptions capture;
    capture.seed = 0;
    EXPECT_TRUE(repro::Capture(*g, inputs, *options, *verdict, dir, capture).ok());
    return dir;
  }

  static repro::Oracle* oracle_;
};

repro::Oracle* ReportTest::oracle_ = nullptr;

TEST_F(ReportTest, BundlePageHasVerdictCulpritChartInputsAndCommands) {
  const std::string bundle = CaptureBundle(TempDir("bundle"));
  const std::string out = TempDir("bundle.html");
  absl::StatusOr<InputKind> kind = WriteReport(bundle, out, ReportOptions());
  ASSERT_TRUE(kind.ok()) << kind.status();
  EXPECT_EQ(*kind, InputKind::kBundle);
  const std::string html = Read(out);
  ExpectWellFormed(html);
  EXPECT_THAT(html, HasSubstr("<body data-report=\"bundle\">"));
  for (const char* section : {"verdict", "divergence", "graph", "inputs", "options", "commands"}) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("<section id=\"", section, "\""))) << section;
  }
  // The graph's name is text, never markup.
  EXPECT_THAT(html, HasSubstr("<title>reprokit report: bundle @%&lt;script&gt;alert(1)&lt;/script&gt;</title>"));
  EXPECT_THAT(html, HasSubstr("<strong id=\"verdict-kind\" class=\"verdict-fail\">accuracy</strong>"));
  // The signature names the planted relu (repro/oracle/failure_site.h).
  EXPECT_THAT(html, HasSubstr("<code id=\"signature\">accuracy:miscompile:relu:f32</code>"));
  // The output (add) fails, but %r (node 2) is the first divergent node: red
  // in the chart and the graph.
  EXPECT_THAT(html, HasSubstr("First divergent node: %r (relu, f32)"));
  EXPECT_THAT(html, HasSubstr("<rect class=\"bar bad\" id=\"bar-n2\""));
  EXPECT_THAT(html, HasSubstr("id=\"divergence-chart\""));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, std::regex("<g id=\"n2\" class=\"node\">\\s*<title>n2</title>\\s*<polygon fill=\"([^\"]+)\"")));
  EXPECT_EQ(m[1], kCulpritColor);
  // %o, the output, fails too (its input is wrong).
  ASSERT_TRUE(std::regex_search(html, m, std::regex("<g id=\"n3\" class=\"node\">\\s*<title>n3</title>\\s*<polygon fill=\"([^\"]+)\"")));
  EXPECT_EQ(m[1], kFailingOutputColor);
  EXPECT_THAT(html, HasSubstr("id=\"cluster0\""));  // a fusion group
  EXPECT_THAT(html, HasSubstr("<td><code>%x</code></td><td>f32</td><td>[16]</td>"));
  EXPECT_THAT(html, HasSubstr(absl::StrCat("reprokit bisect ", bundle, " --nodes")));
  EXPECT_THAT(html, Not(HasSubstr("id=\"minimization\"")));  // not minimized
}

TEST_F(ReportTest, MinimizedBundleShowsSizesAndProgressChart) {
  const std::string bundle = CaptureBundle(TempDir("to_minify"));
  const std::string min = TempDir("minimized");
  minifier::MinifyBundleOptions options;
  options.input_dir = bundle;
  options.output_dir = min;
  options.isolate = false;
  absl::StatusOr<minifier::MinifyBundleResult> result = minifier::MinifyBundle(options);
  ASSERT_TRUE(result.ok()) << result.status();
  const std::string out = TempDir("min.html");
  ASSERT_TRUE(WriteReport(min, out, ReportOptions()).ok());
  const std::string html = Read(out);
  ExpectWellFormed(html);
  EXPECT_THAT(html, HasSubstr("<section id=\"minimization\""));
  EXPECT_THAT(html, HasSubstr("constants as nothing)</td><td>3</td><td>1</td>"));
  EXPECT_THAT(html, HasSubstr("id=\"minify-progress\""));
  EXPECT_THAT(html, HasSubstr("<polyline class=\"line s0\""));
}

TEST_F(ReportTest, DumpPageHasPassSizesFusionKernelsAndTimings) {
  const std::string dump = TempDir("dump");
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(graph @g(%x: f32[4,8]) {
  %one = full() {dtype=f32, shape=[], value=1.0} : f32[]
  %y = mul(%x, %one) : f32[4,8]
  %e = exp(%y) : f32[4,8]
  %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[4,1]
  %p = div(%e, %s) : f32[4,8]
  return %p
})");
  ASSERT_TRUE(g.ok()) << g.status();
  compiler::CompileOptions options;
  options.dump_dir = dump;
  ASSERT_TRUE(compiler::Compile(*g, options).ok());
  const std::string out = TempDir("dump.html");
  absl::StatusOr<InputKind> kind = WriteReport(dump, out, ReportOptions());
  ASSERT_TRUE(kind.ok()) << kind.status();
  EXPECT_EQ(*kind, InputKind::kDump);
  const std::string html = Read(out);
  ExpectWellFormed(html);
  for (const char* section : {"passes", "fusion", "kernels", "timings"}) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("<section id=\"", section, "\""))) << section;
  }
  EXPECT_THAT(html, HasSubstr("id=\"bar-input\""));  // 00_input.rk
  EXPECT_THAT(html, HasSubstr("id=\"pass-sizes\""));
  EXPECT_THAT(html, HasSubstr("id=\"cluster0\""));
  EXPECT_THAT(html, HasSubstr("<td><code>k0</code></td>"));
  EXPECT_THAT(html, HasSubstr("id=\"phase-optimize\""));
  EXPECT_THAT(html, Not(HasSubstr("id=\"phase-total\"")));
}

TEST_F(ReportTest, CampaignPageHasTimelineFindingsCoverageAndLinks) {
  const std::string dir = TempDir("campaign");
  fuzz::CampaignOptions o;
  o.out_dir = dir;
  o.iterations = 6;
  o.seed = 3;
  o.generator.nodes = 5;
  o.generator.max_elements = 64;
  o.generator.ops = {compiler::Op::kRelu, compiler::Op::kAdd, compiler::Op::kExp};
  o.faults = {"relu:accuracy"};
  o.opt_levels = false;
  o.gpu = false;
  o.emit = false;
  o.minimize_seconds = 20;
  absl::StatusOr<fuzz::CampaignSummary> s = fuzz::RunCampaign(o);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->findings.size(), 1u);
  const std::string out = (fs::path(dir) / "report.html").string();
  absl::StatusOr<InputKind> kind = WriteReport(dir, out, ReportOptions());
  ASSERT_TRUE(kind.ok()) << kind.status();
  EXPECT_EQ(*kind, InputKind::kCampaign);
  const std::string html = Read(out);
  ExpectWellFormed(html);
  for (const char* section : {"overview", "over-time", "findings", "coverage", "verdicts", "targets"}) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("<section id=\"", section, "\""))) << section;
  }
  const fuzz::FindingRecord& f = s->findings[0];
  EXPECT_THAT(html, HasSubstr(absl::StrCat("<span id=\"finding-", f.name, "\">")));
  EXPECT_THAT(html, HasSubstr(absl::StrCat("href=\"findings/", f.name, "/report.html\"")));
  EXPECT_THAT(html, HasSubstr("id=\"judged-over-time\""));
  EXPECT_THAT(html, HasSubstr("id=\"coverage-heatmap\""));
  EXPECT_THAT(html, HasSubstr("<title>relu f32: "));
  const std::string finding_page = Read((fs::path(dir) / FindingReportPath(f.name)).string());
  ExpectWellFormed(finding_page);
  EXPECT_THAT(finding_page, HasSubstr("<body data-report=\"bundle\">"));
}

TEST(DetectInputTest, NamesWhatAPathIsNot) {
  const std::string empty = TempDir("empty");
  fs::create_directories(empty);
  EXPECT_EQ(DetectInput(empty).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(DetectInput(empty).status().message()),
              HasSubstr("not a bundle (repro.json), a dump directory"));
  EXPECT_EQ(DetectInput(empty + "/missing").status().code(), absl::StatusCode::kNotFound);
  const std::string file = empty + "/f.txt";
  ASSERT_TRUE(WriteStringToFile(file, "x").ok());
  EXPECT_EQ(DetectInput(file).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rk::report
