// CompileWithCapture: compiler::Compile for programs that embed the compiler,
// leaving a repro bundle behind when asked to, like PyTorch's
// TORCHDYNAMO_REPRO_AFTER (docs/BUNDLE.md, "Capture from a program").
//
// The environment decides:
//   REPROKIT_CAPTURE=off          (default) just compile
//   REPROKIT_CAPTURE=on_failure   capture when Compile returns an error
//   REPROKIT_CAPTURE=always       capture every compile
//   REPROKIT_CAPTURE_DIR=DIR      where bundles go (default ./reprokit-captures)
// Each bundle is `DIR/<graph name>-<12 hex>`, the hex a hash of the graph,
// the options and the input bytes, so the same compile captured twice lands
// in the same place and is written once. A compile that crashes the process
// cannot be captured here: `reprokit capture` runs it isolated.
// The recorded verdict is compile_error or pass from the compile result and
// marked "not judged" (no oracle runs inside a user's compile). Without
// inputs the bundle records the seed-0 seeded inputs as recipes.
//
// Capturing never changes the compile result: a capture that fails (bad
// directory, full disk, unknown REPROKIT_CAPTURE value) prints one warning to
// stderr and the compile's own Status or Executable is returned.
//
// Tested by repro/bundle/capturing_compile_test.cc.
#ifndef REPROKIT_REPRO_BUNDLE_CAPTURING_COMPILE_H_
#define REPROKIT_REPRO_BUNDLE_CAPTURING_COMPILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"

namespace rk::repro {

enum class CaptureMode { kOff, kOnFailure, kAlways };

struct CaptureSettings {
  CaptureMode mode = CaptureMode::kOff;
  std::string dir = "reprokit-captures";
};

// Reads REPROKIT_CAPTURE and REPROKIT_CAPTURE_DIR; an unknown mode is
// InvalidArgument naming the valid ones.
absl::StatusOr<CaptureSettings> CaptureSettingsFromEnv();

// Where a capture of (graph, options, inputs) goes under `dir`.
std::string CaptureBundleDir(const std::string& dir, const compiler::Graph& graph,
                             const compiler::CompileOptions& options,
                             const std::vector<compiler::HostTensor>& inputs);

// `inputs`, when not null, are recorded as the bundle's inputs (as blobs).
absl::StatusOr<compiler::Executable> CompileWithCapture(
    const compiler::Graph& graph, const compiler::CompileOptions& options,
    const std::vector<compiler::HostTensor>* inputs = nullptr);
// The same with explicit settings instead of the environment.
absl::StatusOr<compiler::Executable> CompileWithCapture(
    const compiler::Graph& graph, const compiler::CompileOptions& options,
    const std::vector<compiler::HostTensor>* inputs, const CaptureSettings& settings);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BUNDLE_CAPTURING_COMPILE_H_
