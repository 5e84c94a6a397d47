// The text format parser (grammar in docs/FORMAT.md).
//
// Errors are InvalidArgument with "file:line:col: message", then the offending
// line and a caret under the column:
//   model.rk:3:17: unknown op 'expp'
//     %e = expp(%d) : f32[8,128]
//          ^
// The parser never crashes, hangs or allocates without bound on any input
// (it is fuzzed); nesting and sizes are limited. `// comments` are allowed
// wherever whitespace is. The result is verified.
//
// Tested by compiler/ir/parser_test.cc.
#ifndef REPROKIT_COMPILER_IR_PARSER_H_
#define REPROKIT_COMPILER_IR_PARSER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace rk::compiler {

// Resolves `sha256:<hex>` constant references to tensors of the given type.
class BlobResolver {
 public:
  virtual ~BlobResolver() = default;
  virtual absl::StatusOr<HostTensor> Get(const std::string& sha256_hex,
                                         const TensorType& type) = 0;
};

// The most elements an inline `dense<...>[...]` literal of a file may have
// (larger constants go in blobs: docs/FORMAT.md, "Limits").
inline constexpr int64_t kMaxLiteralElements = int64_t{1} << 22;

struct ParseOptions {
  std::string filename = "<input>";  // used in error messages
  BlobResolver* resolver = nullptr;  // required only for sha256 references
  // Text reprokit printed itself for one of its own processes (PrintInline, on
  // the oracle's and the backend protocol's wire) holds every constant inline,
  // whatever its size: such readers lift the limit.
  int64_t max_literal_elements = kMaxLiteralElements;
};

absl::StatusOr<Graph> Parse(std::string_view text, const ParseOptions& options = {});
// Parses what PrintInline printed for another reprokit process: no literal limit.
absl::StatusOr<Graph> ParseInline(std::string_view text);
// Reads and parses a file (errors name the path).
absl::StatusOr<Graph> ParseFile(const std::string& path, BlobResolver* resolver = nullptr);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_PARSER_H_
