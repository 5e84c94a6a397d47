// The pass manager: runs the graph pipeline, a list of pass names (data), and
// numbers every application of an optional rewrite, like LLVM's
// -opt-bisect-limit, so bisection can find the first bad one.
//
// An "application" is one rewrite at one site (one CSE merge, one folded node,
// one fusion group). A pass asks PassContext::ShouldApply before each; the
// context gives it the next global sequence number (1, 2, ...) and says no
// once the number exceeds CompileOptions::max_pass_applications, or when the
// pass is disabled by name, or opt_level is 0. Numbers are stable up to the
// cap: the same graph and options give the same sequence. Required lowering
// (e.g. decomposing composites) is not optional and is never numbered.
// In checked mode the verifier runs after every pass; with dump_dir set the
// graph is written after every pass that changed it.
//
// Tested by compiler/passes/pass_manager_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_PASS_MANAGER_H_
#define REPROKIT_COMPILER_PASSES_PASS_MANAGER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/options/compile_options.h"
#include "compiler/options/faults.h"

namespace rk::compiler {

// How long one pipeline pass took, for --dump timings and the driver's report.
struct PassTiming {
  std::string pass;
  double seconds = 0;
  bool ran = false;      // false when skipped (disabled, or opt_level 0)
  bool changed = false;
};

struct PassApplication {
  int64_t number;      // global sequence number, from 1
  std::string pass;    // pass name, e.g. "cse"
  std::string detail;  // what it touched, e.g. "%41 (relu) merged into %12"
};

class PassContext {
 public:
  // Fails if options.faults does not parse.
  static absl::StatusOr<PassContext> Create(const CompileOptions& options);

  const CompileOptions& options() const { return options_; }
  const FaultSet& faults() const { return faults_; }

  // Permission for one application of optional pass `pass` at `detail`.
  // Fires `<pass>:<kind>` compile-time faults when granted.
  absl::StatusOr<bool> ShouldApply(std::string_view pass, std::string_view detail);
  bool IsDisabled(std::string_view pass) const;

  // Applications requested so far (granted or refused by the cap); an
  // uncapped compile's count is the N that bisection searches over.
  int64_t requested() const { return requested_; }
  const std::vector<PassApplication>& log() const { return log_; }

  // One entry per pipeline pass, in order, filled by RunGraphPipeline; later
  // stages (fusion, codegen) may append their own.
  const std::vector<PassTiming>& timings() const { return timings_; }
  void RecordTiming(PassTiming timing) { timings_.push_back(std::move(timing)); }

 private:
  PassContext(CompileOptions options, FaultSet faults);
  CompileOptions options_;
  FaultSet faults_;
  int64_t requested_ = 0;
  std::vector<PassApplication> log_;
  std::vector<PassTiming> timings_;
};

// A graph pass: rewrites `graph` (usually by building a fresh one), returns
// whether it changed anything.
using PassFn = absl::StatusOr<bool> (*)(Graph& graph, PassContext& context);

// The registered graph passes, in pipeline order; names are stable
// (command line, disable_passes, logs, dumps).
struct PassInfo {
  const char* name;
  PassFn run;
  bool optional;  // numbered and skippable; false for required lowering
};
const std::vector<PassInfo>& GraphPipeline();
const PassInfo* FindPass(std::string_view name);

// Runs GraphPipeline() on a copy of `graph`. Optional passes that are
// disabled, or all of them at opt_level 0, are skipped. With options.checked
// the input and every pass's result are verified (an invalid result is an
// Internal error naming the pass). With options.dump_dir the input is written
// to <dump_dir>/passes/00_input.rk and the graph after each pass that changed
// it to <dump_dir>/passes/NN_<pass>.rk (NN: the pass's 1-based pipeline index).
absl::StatusOr<Graph> RunGraphPipeline(const Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_PASS_MANAGER_H_
