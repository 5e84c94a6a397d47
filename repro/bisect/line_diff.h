// LineDiff: a unified diff of two texts, line by line, for showing what one
// pass application changed in the dumped graphs and kernels.
//
// Needs nothing but the two texts. Guarantees: the output is empty iff the
// texts are equal; otherwise `--- a` / `+++ b` headers and `@@ -l,n +l,n @@`
// hunks with `context` lines around each change, like `diff -u`. The edit
// script is a longest common subsequence of the lines between a common
// prefix and suffix; when that middle is too large to align cheaply (over
// kMaxAlignedCells line pairs) it is shown as one replaced block, which is
// still a correct diff, only not a minimal one.
//
// Tested by repro/bisect/line_diff_test.cc.
#ifndef REPROKIT_REPRO_BISECT_LINE_DIFF_H_
#define REPROKIT_REPRO_BISECT_LINE_DIFF_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace rk::repro {

inline constexpr int64_t kMaxAlignedCells = int64_t{4} << 20;

struct LineDiffStats {
  int added = 0;
  int removed = 0;
};

std::string LineDiff(std::string_view a, std::string_view b, std::string_view a_name,
                     std::string_view b_name, int context = 3, LineDiffStats* stats = nullptr);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BISECT_LINE_DIFF_H_
