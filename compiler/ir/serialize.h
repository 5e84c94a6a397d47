// Versioned binary serialization of graphs (cereal portable binary archives).
// The blob starts with a magic ("RKG1") and a format version; loading rejects
// other versions and any malformed data with InvalidArgument (never throws),
// and verifies the graph.
//
// Tested by compiler/ir/serialize_test.cc.
#ifndef REPROKIT_COMPILER_IR_SERIALIZE_H_
#define REPROKIT_COMPILER_IR_SERIALIZE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace rk::compiler {

inline constexpr int kGraphFormatVersion = 1;

std::string SerializeGraph(const Graph& graph);
absl::StatusOr<Graph> DeserializeGraph(std::string_view bytes);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_SERIALIZE_H_
