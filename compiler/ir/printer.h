// The text format printer (grammar in docs/FORMAT.md).
//
//   graph @block(%x: f32[8,128], %w: f32[128]) {
//     %m = reduce_max(%x) {axes=[1], keepdim=true} : f32[8,1]
//     ...
//     return %o
//   }
//
// Print is exact: Parse(Print(g)) == g, and Print(Parse(Print(g))) == Print(g)
// byte for byte. Attributes print sorted by name; floats print with the
// shortest text that round-trips. Constants up to `inline_limit` elements are
// inline literals; larger ones print as `sha256:<hex>` references, and their
// bytes are handed to the BlobSink (the content store plugs in here).
//
// PrintCanonical renames every node to its dense id (%0, %1, ...), names the
// graph @g, inlines constants up to kCanonicalInlineLimit elements and names
// larger ones by the SHA-256 of their bytes (what the store keys them by): it
// is the only input to graph hashes.
//
// Tested by compiler/ir/printer_test.cc (golden files in compiler/ir/testdata/).
#ifndef REPROKIT_COMPILER_IR_PRINTER_H_
#define REPROKIT_COMPILER_IR_PRINTER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace rk::compiler {

// Receives large constants while printing; returns the content address
// (64 lowercase hex chars of the SHA-256 of the raw bytes) it stored them under.
class BlobSink {
 public:
  virtual ~BlobSink() = default;
  virtual absl::StatusOr<std::string> Put(const HostTensor& tensor) = 0;
};

inline constexpr int64_t kCanonicalInlineLimit = 64;

struct PrintOptions {
  int64_t inline_limit = 64;      // constants with more elements go to `sink`
  BlobSink* sink = nullptr;       // required only if a constant exceeds the limit
};

absl::StatusOr<std::string> Print(const Graph& graph, const PrintOptions& options = {});
// Printing with everything inline cannot fail.
std::string PrintInline(const Graph& graph);
std::string PrintCanonical(const Graph& graph);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_PRINTER_H_
