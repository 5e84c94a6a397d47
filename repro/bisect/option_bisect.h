// Option bisection (`reprokit bisect --options`, docs/WORKFLOWS.md): delta
// debugging over the difference between a good and a bad CompileOptions, down
// to a minimal set of changes that still makes the compilation fail with its
// signature.
//
// The difference is split into items: one per scalar key whose value differs
// ("fast_math=true"), and one per list element added or removed for the list
// keys disable_passes and faults ("faults+=relu:accuracy",
// "disable_passes-=cse"), so a bad configuration with several faults or
// disabled passes is narrowed to the one that matters. dump_dir never counts.
// A subset of items applied to the good options gives a configuration;
// Ddmin (ddmin.h) finds a 1-minimal failing subset: applying all of it fails
// with the signature, leaving out any one item does not.
//
// Needs a FailureProbe whose target fails with its own options (the "bad"
// side; not re-judged). The good options are judged first: if they fail with
// the signature too, the difference is not to blame and the result says so.
//
// Tested by repro/bisect/option_bisect_test.cc.
#ifndef REPROKIT_REPRO_BISECT_OPTION_BISECT_H_
#define REPROKIT_REPRO_BISECT_OPTION_BISECT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/json.h"
#include "compiler/options/compile_options.h"
#include "repro/bisect/failure_probe.h"

namespace rk::repro {

struct OptionItem {
  enum class Change { kSet, kAdd, kRemove };
  std::string key;
  std::string value;  // kSet: the bad value; kAdd/kRemove: the list element
  Change change = Change::kSet;

  std::string ToString() const;  // "key=value", "key+=element", "key-=element"
};

// The items that turn `good` into `bad`, in CompileOptions::Items() key order.
std::vector<OptionItem> DifferingItems(const compiler::CompileOptions& good,
                                       const compiler::CompileOptions& bad);

// `good` with `items` applied. List additions keep the bad side's order.
absl::StatusOr<compiler::CompileOptions> ApplyItems(const compiler::CompileOptions& good,
                                                    absl::Span<const OptionItem> items);

struct OptionBisectResult {
  compiler::CompileOptions good;
  compiler::CompileOptions bad;
  std::vector<OptionItem> differing;
  // True when the good options already fail with the signature; nothing is
  // minimized then.
  bool good_fails = false;
  std::string good_verdict;  // signature or "pass"
  std::vector<OptionItem> minimal;
  compiler::CompileOptions minimal_options;  // good + minimal
  int64_t judgements = 0;

  std::string ToText() const;
  Json ToJson() const;
};

absl::StatusOr<OptionBisectResult> BisectOptions(FailureProbe& probe,
                                                 const compiler::CompileOptions& good);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BISECT_OPTION_BISECT_H_
