// Ddmin: Zeller's delta debugging, minimizing a set of changes while a test
// keeps "failing" (true). Generic over indices 0..n-1 so option bisection (and
// any later bisector in repro/) can use it without knowing what they are.
//
// Needs: test(all n) is true and test({}) is false (the caller checks both;
// they are not re-run). Guarantees: the result is a subset of 0..n-1, sorted,
// on which test is true, and 1-minimal: removing any single element makes the
// test false. Each distinct subset is tested at most once; a test error stops
// the search and is returned.
//
// Tested by repro/bisect/ddmin_test.cc.
#ifndef REPROKIT_REPRO_BISECT_DDMIN_H_
#define REPROKIT_REPRO_BISECT_DDMIN_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace rk::repro {

using SubsetTest = std::function<absl::StatusOr<bool>(absl::Span<const int> subset)>;

absl::StatusOr<std::vector<int>> Ddmin(int n, const SubsetTest& test);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BISECT_DDMIN_H_
