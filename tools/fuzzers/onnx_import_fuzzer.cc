// Fuzz harness: the ONNX importer (compiler/onnx). Any bytes as a model file
// must import or give an error, never crash or allocate without bound; an
// imported graph must verify, export (opset 17, compiler/onnx/exporter.h),
// pass the file checks again and re-import to the same canonical graph hash,
// the round trip exporter.h promises for every graph the importer produces.
// Seeds: backends/testdata/*.onnx and the models of testing/onnx
// (tools/fuzzers/make_seeds.sh).
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/onnx/exporter.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "tools/fuzzers/fuzz_assert.h"

namespace onnx_io = rk::compiler::onnx_io;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 20)) return -1;  // models of interest are small
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<onnx::ModelProto> model = onnx_io::ParseModel(bytes, "fuzz.onnx");
  if (!model.ok()) return 0;
  absl::StatusOr<onnx_io::ImportedModel> imported = onnx_io::ImportModel(*model);
  if (!imported.ok()) return 0;
  const rk::compiler::Graph& graph = imported->graph;
  absl::Status verified = rk::compiler::Verify(graph);
  RK_FUZZ_ASSERT(verified.ok(), "imported but does not verify: %s",
                 std::string(verified.message()).c_str());

  absl::StatusOr<onnx::ModelProto> exported = onnx_io::ExportModel(graph);
  RK_FUZZ_ASSERT(exported.ok(), "an imported graph does not export: %s\n--- graph:\n%s",
                 exported.status().ToString().c_str(), rk::compiler::PrintInline(graph).c_str());
  std::string exported_bytes;
  RK_FUZZ_ASSERT(exported->SerializeToString(&exported_bytes), "the exported model does not serialize");
  absl::StatusOr<onnx::ModelProto> reparsed = onnx_io::ParseModel(exported_bytes, "exported.onnx");
  RK_FUZZ_ASSERT(reparsed.ok(), "the exported model fails the file checks: %s\n--- graph:\n%s",
                 reparsed.status().ToString().c_str(), rk::compiler::PrintInline(graph).c_str());
  absl::StatusOr<onnx_io::ImportedModel> again = onnx_io::ImportModel(*reparsed);
  RK_FUZZ_ASSERT(again.ok(), "the exported model does not import: %s\n--- graph:\n%s",
                 again.status().ToString().c_str(), rk::compiler::PrintInline(graph).c_str());
  RK_FUZZ_ASSERT(
      rk::compiler::CanonicalHash(again->graph) == rk::compiler::CanonicalHash(graph),
      "export + import changed the graph\n--- imported:\n%s\n--- after the round trip:\n%s",
      rk::compiler::PrintInline(graph).c_str(), rk::compiler::PrintInline(again->graph).c_str());
  return 0;
}
