// Fuzz harness: the .rk text format. Whatever the parser accepts must verify,
// print, and parse back to the same graph (canonical text equal): the round
// trip every bundle relies on. Seeds: examples/, tools/testdata, the graphs in
// the tests of compiler/ir and compiler/passes; dictionary: rk.dict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "tools/fuzzers/fuzz_assert.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (64 << 10)) return -1;  // graphs of interest are small
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<rk::compiler::Graph> graph = rk::compiler::Parse(text);
  if (!graph.ok()) return 0;
  absl::Status verified = rk::compiler::Verify(*graph);
  RK_FUZZ_ASSERT(verified.ok(), "parsed but does not verify: %s",
                 std::string(verified.message()).c_str());
  absl::StatusOr<std::string> printed = rk::compiler::Print(*graph);
  RK_FUZZ_ASSERT(printed.ok(), "parsed but does not print: %s",
                 std::string(printed.status().message()).c_str());
  absl::StatusOr<rk::compiler::Graph> again = rk::compiler::Parse(*printed);
  RK_FUZZ_ASSERT(again.ok(), "printed text does not parse: %s\n--- printed:\n%s",
                 std::string(again.status().message()).c_str(), printed->c_str());
  std::string first = rk::compiler::PrintCanonical(*graph);
  std::string second = rk::compiler::PrintCanonical(*again);
  RK_FUZZ_ASSERT(first == second, "round trip changed the graph\n--- before:\n%s\n--- after:\n%s",
                 first.c_str(), second.c_str());
  return 0;
}
