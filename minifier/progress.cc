#include "minifier/progress.h"

#include "absl/strings/str_format.h"

namespace rk::minifier {

std::string ProgressPrinter::Line(const ProgressEvent& e) {
  return absl::StrFormat("minify: %-20s nodes %d/%d  oracle calls %d (%d cached)  %.1f s",
                         std::string(e.reduction), e.nodes_now, e.nodes_start, e.oracle_calls,
                         e.cache_hits, e.elapsed_seconds);
}

void ProgressPrinter::Update(const ProgressEvent& event) {
  if (!terminal_) {
    if (event.accepted) std::fprintf(out_, "%s\n", Line(event).c_str());
    return;
  }
  if (!event.accepted && last_print_ >= 0 && event.elapsed_seconds - last_print_ < 0.1) return;
  last_print_ = event.elapsed_seconds;
  std::fprintf(out_, "\r\033[K%s", Line(event).c_str());
  std::fflush(out_);
  line_open_ = true;
}

void ProgressPrinter::Finish() {
  if (line_open_) std::fputs("\n", out_);
  line_open_ = false;
}

}  // namespace rk::minifier
