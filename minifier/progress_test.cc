#include "minifier/progress.h"

#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace rk::minifier {
namespace {

std::string Printed(bool terminal, bool accepted) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  ProgressPrinter printer(out, terminal);
  ProgressEvent event{.reduction = "cut_head", .nodes_now = 3, .nodes_start = 1204,
                      .oracle_calls = 140, .cache_hits = 31, .elapsed_seconds = 4.1,
                      .accepted = accepted};
  printer.Update(event);
  printer.Finish();
  std::fclose(out);
  std::string text(buffer, size);
  free(buffer);
  return text;
}

TEST(ProgressPrinter, PlainModeLogsAcceptedStepsOnly) {
  EXPECT_EQ(Printed(false, false), "");
  EXPECT_EQ(Printed(false, true),
            "minify: cut_head             nodes 3/1204  oracle calls 140 (31 cached)  4.1 s\n");
}

TEST(ProgressPrinter, TerminalModeRewritesOneLine) {
  std::string text = Printed(true, false);
  EXPECT_EQ(text.rfind("\r\033[K", 0), 0u);
  EXPECT_NE(text.find("nodes 3/1204"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
}  // namespace rk::minifier
