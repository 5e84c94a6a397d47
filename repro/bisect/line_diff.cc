#include "repro/bisect/line_diff.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"

namespace rk::repro {
namespace {

struct Edit {
  char tag;  // ' ', '-' or '+'
  std::string_view line;
  int a_line;  // 0-based line in a (for ' ' and '-'), else the next line of a
  int b_line;  // 0-based line in b (for ' ' and '+'), else the next line of b
};

// A trailing newline ends the last line rather than starting an empty one.
std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return lines;
}

// The edit script turning a[lo_a, hi_a) into b[lo_b, hi_b).
void AlignMiddle(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                 int lo_a, int hi_a, int lo_b, int hi_b, std::vector<Edit>& edits) {
  const int n = hi_a - lo_a, m = hi_b - lo_b;
  if (static_cast<int64_t>(n + 1) * (m + 1) > kMaxAlignedCells) {
    for (int i = lo_a; i < hi_a; ++i) edits.push_back({'-', a[i], i, lo_b});
    for (int j = lo_b; j < hi_b; ++j) edits.push_back({'+', b[j], hi_a, j});
    return;
  }
  // lcs[i][j]: length of the LCS of a[lo_a+i..hi_a) and b[lo_b+j..hi_b).
  std::vector<int> lcs(static_cast<size_t>(n + 1) * (m + 1), 0);
  auto at = [&](int i, int j) -> int& { return lcs[static_cast<size_t>(i) * (m + 1) + j]; };
  for (int i = n - 1; i >= 0; --i) {
    for (int j = m - 1; j >= 0; --j) {
      at(i, j) = a[lo_a + i] == b[lo_b + j] ? at(i + 1, j + 1) + 1
                                            : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  int i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[lo_a + i] == b[lo_b + j]) {
      edits.push_back({' ', a[lo_a + i], lo_a + i, lo_b + j});
      ++i, ++j;
    } else if (j == m || (i < n && at(i + 1, j) >= at(i, j + 1))) {
      edits.push_back({'-', a[lo_a + i], lo_a + i, lo_b + j});
      ++i;
    } else {
      edits.push_back({'+', b[lo_b + j], lo_a + i, lo_b + j});
      ++j;
    }
  }
}

std::string HunkRange(int first, int count) {
  // diff -u numbers from 1 and names the line before an empty range.
  return count == 0 ? absl::StrCat(first, ",0") : absl::StrCat(first + 1, ",", count);
}

}  // namespace

std::string LineDiff(std::string_view a_text, std::string_view b_text, std::string_view a_name,
                     std::string_view b_name, int context, LineDiffStats* stats) {
  const std::vector<std::string_view> a = SplitLines(a_text), b = SplitLines(b_text);
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  int prefix = 0;
  while (prefix < n && prefix < m && a[prefix] == b[prefix]) ++prefix;
  int suffix = 0;
  while (suffix < n - prefix && suffix < m - prefix && a[n - 1 - suffix] == b[m - 1 - suffix]) {
    ++suffix;
  }
  std::vector<Edit> edits;
  for (int i = 0; i < prefix; ++i) edits.push_back({' ', a[i], i, i});
  AlignMiddle(a, b, prefix, n - suffix, prefix, m - suffix, edits);
  for (int k = suffix; k > 0; --k) edits.push_back({' ', a[n - k], n - k, m - k});

  LineDiffStats counted;
  std::vector<int> changes;
  for (int e = 0; e < static_cast<int>(edits.size()); ++e) {
    if (edits[e].tag == ' ') continue;
    changes.push_back(e);
    (edits[e].tag == '+' ? counted.added : counted.removed)++;
  }
  if (stats != nullptr) *stats = counted;
  if (changes.empty()) return "";

  std::string out = absl::StrCat("--- ", std::string(a_name), "\n+++ ", std::string(b_name), "\n");
  size_t c = 0;
  while (c < changes.size()) {
    // A hunk takes every change within 2*context unchanged lines of the last.
    size_t last = c;
    while (last + 1 < changes.size() && changes[last + 1] - changes[last] <= 2 * context + 1) {
      ++last;
    }
    const int begin = std::max(0, changes[c] - context);
    const int end = std::min(static_cast<int>(edits.size()), changes[last] + context + 1);
    int a_count = 0, b_count = 0;
    for (int e = begin; e < end; ++e) {
      if (edits[e].tag != '+') ++a_count;
      if (edits[e].tag != '-') ++b_count;
    }
    const int a_first = edits[begin].a_line;
    const int b_first = edits[begin].b_line;
    absl::StrAppend(&out, "@@ -", HunkRange(a_first, a_count), " +", HunkRange(b_first, b_count),
                    " @@\n");
    for (int e = begin; e < end; ++e) {
      absl::StrAppend(&out, std::string(1, edits[e].tag), std::string(edits[e].line), "\n");
    }
    c = last + 1;
  }
  return out;
}

}  // namespace rk::repro
