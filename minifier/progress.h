// ProgressPrinter: turns the engine's ProgressEvents into what a user sees.
// On a terminal, one line rewritten in place (reduction, nodes now/at start,
// oracle calls, cache hits, elapsed), at most ten times a second; otherwise
// one plain log line per accepted step, so logs stay readable.
//
// Tested by minifier/progress_test.cc.
#ifndef REPROKIT_MINIFIER_PROGRESS_H_
#define REPROKIT_MINIFIER_PROGRESS_H_

#include <cstdio>
#include <string>

#include "minifier/engine.h"

namespace rk::minifier {

class ProgressPrinter {
 public:
  ProgressPrinter(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}
  void Update(const ProgressEvent& event);
  // Ends the in-place line (terminal mode).
  void Finish();

  static std::string Line(const ProgressEvent& event);

 private:
  std::FILE* out_;
  bool terminal_;
  bool line_open_ = false;
  double last_print_ = -1;
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_PROGRESS_H_
