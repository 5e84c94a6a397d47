// Standalone reproducers (`reprokit export BUNDLE --standalone DIR`): what a
// target's maintainers run without reprokit (docs/BACKENDS.md, "Standalone
// reproducers").
//
// ONNX Runtime: model.onnx (written by the caller's exporter), input_<i>.npy,
// reference_<i>.npy (the reference interpreter in the graph's own dtypes),
// expected_<i>.npy (the fp64 reference), expected.json (the failing settings:
// graph_optimization_level, intra_op_num_threads, device; per output the
// tolerance and the RMSE bound of the oracle's "torch" policy, so no reference
// interpreter is needed), repro.py (onnxruntime + numpy), repro.js
// (onnxruntime-node) and README.md. Both scripts exit 1 while the discrepancy
// is present and 0 once it is gone.
//
// Inductor: repro.py with the graph as a PyTorch function (one torch call per
// node, the semantics of docs/FORMAT.md as backends/torch_inductor/serve has
// them), its inputs as .npy, torch.compile under the recorded
// torch._inductor.config options, the eager fp64 result and the same rule.
//
// XLA (jax_xla): repro.py with the graph as a jax function (jax_source.h, the
// semantics of backends/jax_xla/serve), jax.jit on the recorded device with the
// recorded jit / matmul precision / XLA options, the op-by-op run in the
// graph's dtypes and in f64, and the same rule. It carries the adapter's own
// planted relu fault (inject_relu_bug_TESTING_ONLY) and says so when it runs,
// so the polarity of a planted bundle's reproducer can be tested.
//
// The bound omits the oracle's low-precision floors (computed_in, operand
// rounding), so a standalone script is at most stricter than the oracle on
// graphs that widen bf16/f16.
//
// Tested by repro/standalone/standalone_test.cc and tools/standalone_cli_test.sh.
#ifndef REPROKIT_REPRO_STANDALONE_STANDALONE_H_
#define REPROKIT_REPRO_STANDALONE_STANDALONE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"

namespace rk::repro {

enum class StandaloneTarget { kOnnxRuntime, kInductor, kXla };

// "onnxruntime" (or a path ending in onnxruntime/serve), "torch_inductor",
// "jax_xla";
// InvalidArgument naming the ones there are otherwise.
absl::StatusOr<StandaloneTarget> ParseStandaloneTarget(const std::string& backend);

struct StandaloneRequest {
  StandaloneTarget target = StandaloneTarget::kOnnxRuntime;
  compiler::Graph graph;
  std::vector<compiler::HostTensor> inputs;
  compiler::CompileOptions options;  // device and backend_options are the failing settings
  double tol = 0;                    // <= 0: the per-dtype default
  std::string recorded;              // one line: what reprokit saw, for README.md
  // Writes the graph as ONNX to the given path (ONNX Runtime only).
  std::function<absl::Status(const std::string& path)> write_onnx;
};

// Writes the reproducer into `dir` (created; must be empty or absent) and
// returns the files written, relative to `dir`. InvalidArgument for what the
// target's form cannot express (an op with no ONNX or torch form, a reference
// that meets undefined behavior).
absl::StatusOr<std::vector<std::string>> WriteStandalone(const StandaloneRequest& request,
                                                         const std::string& dir);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STANDALONE_STANDALONE_H_
