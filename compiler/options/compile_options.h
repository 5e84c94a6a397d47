// CompileOptions: every knob of a compilation, as one printable, parseable
// struct, so bundles, the CLI and bisection can carry it.
//
// Text form: space-separated `key=value` pairs in a fixed key order, lists
// comma-separated, defaults omitted, e.g.
//   "fast_math=true faults=relu:accuracy max_pass_applications=17"
// Keys: device (cpu|cuda), opt_level (0..2), disable_passes (list of pass
// names), max_pass_applications (-1 = no cap), fast_math, low_precision
// (compute f16/bf16 in their own precision instead of f32), reduce_order
// (sequential|tree: the order of float sums unless fast_math, which
// reassociates; tree is pairwise, see compiler/kernel/kernel_ir.h), vector_width
// (0 = target default, else 1|2|4|8|16), threads (>= 1), faults (list of
// `<op-or-pass>:<kind>`, testing only, see docs/FAULTS.md), dump_dir,
// checked (verify the graph around every pass), cuda_arch (sm_NN, default
// sm_90, which bundles of every version assume; or auto: the GPU's own, sm_90
// where there is none),
// tensor_cores (cuda, sm_80+: f16/bf16 matmuls on mma.sync; false keeps
// them on the SIMT tiles), tf32 (cuda, sm_80+, with tensor_cores: f32
// matmuls on mma.sync in TF32, inputs rounded to 10-bit mantissas; off by
// default, as it is far less exact than f32),
// cuda_max_fused_ops (cuda: the most ops one fused kernel computes, root
// included, before fusion materializes a value and starts a new kernel; 0 =
// no cap; default 144: see docs/GPU.md, "Cold compile"),
// backend (an external compiler judged in place of this one: a name or an
// absolute path, see docs/BACKENDS.md; "" = this compiler) and backend_options
// (list of `KEY:VALUE`, the options the external backend declared).
//
// Tested by compiler/options/compile_options_test.cc.
#ifndef REPROKIT_COMPILER_OPTIONS_COMPILE_OPTIONS_H_
#define REPROKIT_COMPILER_OPTIONS_COMPILE_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace rk::compiler {

// Order of float sums (reductions) when fast_math is off.
enum class ReduceOrder { kSequential, kTree };

struct CompileOptions {
  std::string device = "cpu";
  int opt_level = 2;
  std::vector<std::string> disable_passes;
  int64_t max_pass_applications = -1;
  bool fast_math = false;
  bool low_precision = false;
  ReduceOrder reduce_order = ReduceOrder::kSequential;
  int vector_width = 0;
  int threads = 1;
  std::vector<std::string> faults;
  std::string dump_dir;
  bool checked = false;
  std::string cuda_arch = "sm_90";
  bool tensor_cores = true;
  bool tf32 = false;
  int cuda_max_fused_ops = 144;
  // An external backend (docs/BACKENDS.md) and its options; the built-in
  // compiler refuses options that name one.
  std::string backend;
  std::vector<std::string> backend_options;  // "KEY:VALUE"

  bool external() const { return !backend.empty(); }

  // Sets one option from its text form; InvalidArgument for an unknown key or
  // a bad value (the message names both and lists the valid keys).
  absl::Status Set(const std::string& key, const std::string& value);
  // Applies "key=value" items in order.
  absl::Status Apply(absl::Span<const std::string> key_values);
  // The canonical text form (fixed key order, defaults omitted; "" for all
  // defaults). Parse(ToString()) == *this.
  std::string ToString() const;
  static absl::StatusOr<CompileOptions> Parse(const std::string& text);
  // Every key with its current value, in the fixed order (for diffs and
  // option bisection).
  std::vector<std::pair<std::string, std::string>> Items() const;

  bool operator==(const CompileOptions& other) const { return ToString() == other.ToString(); }
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_OPTIONS_COMPILE_OPTIONS_H_
