// The oracle's verdict on one compile-and-run of a graph: its kind, its
// failure signature, per-output metrics and where the time went.
//
// Produced by the oracle (oracle.h), stored in bundles (repro.json), printed by
// `reprokit check`.
#ifndef REPROKIT_REPRO_ORACLE_VERDICT_H_
#define REPROKIT_REPRO_ORACLE_VERDICT_H_

#include <string>
#include <vector>

#include "repro/oracle/accuracy.h"
#include "repro/oracle/signature.h"

namespace rk::repro {

struct OutputVerdict {
  int index = 0;              // position in the graph's outputs
  std::string node;           // the producing node's display name
  std::string op;             // the producing node's op, e.g. "relu"
  std::string dtype;          // e.g. "f32"
  // For a gradient output of a joint graph (graphs with `grad` inputs,
  // repro/oracle/gradients.h): the display name of the input it is the
  // gradient of; "" for a forward output.
  std::string gradient_of;
  OutputMetrics metrics;
};

// How tables name an output: "%y", or "grad(%w)" for a gradient.
inline std::string OutputLabel(const OutputVerdict& o) {
  return o.gradient_of.empty() ? "%" + o.node : "grad(%" + o.gradient_of + ")";
}

struct Verdict {
  VerdictKind kind = VerdictKind::kPass;
  Signature signature;
  // One line for humans: the compile error, the signal, the failing output.
  std::string message;
  // For accuracy failures: "miscompile" when the graph recompiled in fp64
  // still disagrees with the fp64 reference, "precision" when it agrees,
  // "unknown" when that check could not run.
  std::string accuracy_subkind;
  std::vector<OutputVerdict> outputs;
  std::string policy = "torch";
  // Notes that qualify the verdict (e.g. "input x: blob missing, used seeded
  // random data").
  std::vector<std::string> warnings;
  // Captured stderr of an isolated run (tail), and the crash backtrace.
  std::string stderr_tail;
  std::vector<std::string> backtrace;
  // Seconds spent compiling, running and in the references.
  double compile_seconds = 0;
  double run_seconds = 0;
  double reference_seconds = 0;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_VERDICT_H_
