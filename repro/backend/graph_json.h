// The JSON form of a graph that run requests carry for backends that ask for
// it (docs/BACKENDS.md, "The graph as JSON"): nodes in topological order with
// op, operands, typed attributes, dtype and shape; literal tensors point into
// the request's payload. Easier for an adapter in another language than
// parsing the text format.
//
// Tested by repro/backend/protocol_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_GRAPH_JSON_H_
#define REPROKIT_REPRO_BACKEND_GRAPH_JSON_H_

#include <string>

#include "base/json.h"
#include "compiler/ir/graph.h"

namespace rk::repro {

// The JSON form; literal tensors' bytes are appended to `payload`.
Json GraphToJson(const compiler::Graph& graph, std::string& payload);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_GRAPH_JSON_H_
