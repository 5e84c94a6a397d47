// The report page of a repro bundle: verdict, signature and message; the
// graph drawn with the culprit node (the first divergent node of
// repro/bisect/divergence.h) and the failing outputs highlighted and the
// default compile's fusion groups as clusters; the per-node divergence as a
// bar chart of log10(rmse vs fp64) in topological order; the inputs (dtype,
// shape, min/max/mean, NaN/Inf counts); options and environment; the commands
// that rerun, bisect and emit it; for a minimized bundle, the sizes before and
// after and the minifier's progress (nodes vs oracle calls).
//
// The compile for fusion groups and the divergence analysis run in this
// process, so they run only for verdicts whose compile completed (accuracy,
// nondeterministic, pass); a bundle that crashes the compiler gets a page
// without them. Nothing here fails because a part is missing: the page says
// what is not there and why.
//
// Tested by testing/report/report_test.cc and tools/report_browser_test.sh.
#ifndef REPROKIT_TESTING_REPORT_BUNDLE_PAGE_H_
#define REPROKIT_TESTING_REPORT_BUNDLE_PAGE_H_

#include <string>

#include "repro/bundle/bundle.h"

namespace rk::report {

struct BundlePageOptions {
  bool divergence = true;  // run the per-node divergence analysis
  bool fusion = true;      // compile once for the fusion groups
  std::string reprokit = "reprokit";  // how commands on the page start
};

std::string BundlePage(const repro::LoadedBundle& bundle, const BundlePageOptions& options);

}  // namespace rk::report

#endif  // REPROKIT_TESTING_REPORT_BUNDLE_PAGE_H_
