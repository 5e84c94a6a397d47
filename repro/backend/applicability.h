// Whether a graph may be sent to an external backend: every op it uses is
// one the backend's hello declares (`ops`), every value's dtype is one of its
// `dtypes`, and every node's (op, dtype) pair is one its optional per-op map
// (`op_dtypes`) allows. A graph that fails this is never sent: the harness
// judges it cannot_judge ("not applicable") with the reason.
//
// A node's dtype, for the per-op map, is the dtype the op computes in: its
// first operand's (a comparison's operands, a cast's source, a gather's data),
// where's second operand's (its values), and a source's own (constant, full,
// iota). Inputs are limited by `dtypes` alone.
//
// Tested by repro/backend/applicability_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_APPLICABILITY_H_
#define REPROKIT_REPRO_BACKEND_APPLICABILITY_H_

#include <optional>
#include <string>

#include "compiler/ir/graph.h"
#include "repro/backend/protocol.h"

namespace rk::repro {

struct NotApplicable {
  // What the backend did not declare, stable across graphs (a key to count
  // by): "op NAME", "dtype NAME" or "op NAME on DTYPE".
  std::string what;
  std::string node;  // the first node that needs it, "%name"
  // "backend 'B' does not support op gt on bool (at %v9)".
  std::string Message(const std::string& backend) const;
};

// The node's dtype as the per-op map reads it (see above).
compiler::DType ComputeDType(const compiler::Graph& graph, const compiler::Node& node);

// nullopt when the backend declares everything `graph` needs, else the first
// thing it does not, in node order.
std::optional<NotApplicable> CheckApplicable(const BackendHello& hello,
                                             const compiler::Graph& graph);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_APPLICABILITY_H_
