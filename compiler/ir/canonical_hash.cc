#include "compiler/ir/canonical_hash.h"

#include "base/sha256.h"
#include "compiler/ir/printer.h"

namespace rk::compiler {

std::string CanonicalHash(const Graph& graph) { return Sha256Hex(PrintCanonical(graph)); }

}  // namespace rk::compiler
