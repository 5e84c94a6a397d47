// The report page of a dump directory (`reprokit compile --dump DIR`, written
// by the pass manager and compiler/backend/lower_to_kernels.cc): graph sizes
// pass by pass (passes/NN_<pass>.rk), the final graph drawn with its fusion
// groups (fusion.txt) as clusters, the kernels with the nodes they were made
// from (the "kernel kN  // ..." lines of kernels.txt) and the compile phase
// timings (timings.json) as a bar chart.
//
// A dump directory is one holding passes/ or fusion.txt (IsDumpDir). Parts
// that are missing or unreadable are named on the page, not fatal.
//
// Tested by testing/report/report_test.cc and tools/report_browser_test.sh.
#ifndef REPROKIT_TESTING_REPORT_DUMP_PAGE_H_
#define REPROKIT_TESTING_REPORT_DUMP_PAGE_H_

#include <string>

#include "absl/status/statusor.h"

namespace rk::report {

bool IsDumpDir(const std::string& dir);

absl::StatusOr<std::string> DumpPage(const std::string& dir);

}  // namespace rk::report

#endif  // REPROKIT_TESTING_REPORT_DUMP_PAGE_H_
