// Capture: turns one compilation (graph, inputs, options) and what happened to
// it (a Verdict) into a bundle on disk, filling in the environment and the
// provenance (UTC time, the command line, the parent bundle's hash).
//
// Inputs are stored as blobs, except when CaptureOptions::seed says they are
// the seeded inputs of compiler/ir/seeded_inputs.h for that seed: then each
// is recorded as its random recipe and costs no space. Compile options keep
// everything but dump_dir, a local path that replaying must not write to.
//
// Tested by repro/bundle/capture_test.cc.
#ifndef REPROKIT_REPRO_BUNDLE_CAPTURE_H_
#define REPROKIT_REPRO_BUNDLE_CAPTURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"
#include "repro/oracle/verdict.h"

namespace rk::repro {

struct CaptureOptions {
  // The inputs are SeededInputs(graph, *seed): record recipes, not blobs
  // (checked; a mismatch is InvalidArgument).
  std::optional<uint64_t> seed;
  // False when `verdict` was not produced by the oracle.
  bool judged = true;
  std::string policy = "torch";
  double tol = 0;
  // The oracle's timeout the verdict was judged with; <= 0: the default.
  double timeout_seconds = 0;
  // The verdict was judged without the fp64 recompile (OracleOptions::
  // classify_accuracy false): an accuracy verdict's bundle records that its
  // miscompile/precision check was deferred (Bundle::precision_check_deferred).
  bool precision_check_deferred = false;
  // The command line recorded in provenance; empty: this process's.
  std::string command_line;
  // BundleHash of the bundle this one was derived from, if any.
  std::string parent_hash;
  // Who captured it, e.g. "reprokit capture" or "REPROKIT_CAPTURE".
  std::string captured_by = "reprokit capture";
  // Where the graph came from when it was not a .rk file (e.g. the imported
  // ONNX model: path, opset, producer, node origins); provenance.source.
  Json source;
  // The external backend judged (options.backend): {"spec", "name",
  // "version"} from its hello; environment.backend.
  Json backend;
};

absl::Status Capture(const compiler::Graph& graph, const std::vector<compiler::HostTensor>& inputs,
                     const compiler::CompileOptions& options, const Verdict& verdict,
                     const std::string& dir, const CaptureOptions& capture_options = {});

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BUNDLE_CAPTURE_H_
