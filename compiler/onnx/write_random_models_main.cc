// write_random_models: exports random generator graphs as ONNX models, for
// checking that a real ONNX consumer (ONNX Runtime) accepts what the
// exporter writes and computes what the reference interpreter computes.
//
//   write_random_models DIR [--seed S] [--count N] [--nodes K] [--ops a,b,...]
//
// For seed i in [S, S + N): DIR/m<i>.onnx, the generator's inputs for that
// graph and the reference interpreter's outputs as raw little-endian files
// (m<i>.in<k>.bin, m<i>.out<k>.bin), the graph's text (m<i>.rk), and
// DIR/m<i>.json naming them with ONNX
// Runtime's type names and the dims. A graph the exporter refuses is listed
// in DIR/refused.txt. Used by compiler/onnx/ort_accepts_exports_test.sh.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "compiler/generator/generator.h"
#include "compiler/ir/printer.h"
#include "compiler/onnx/exporter.h"
#include "compiler/reference/interpreter.h"

namespace rk::compiler::onnx_io {
namespace {

const char* OrtTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF16: return "float16";
    case DType::kBF16: return "bfloat16";
    case DType::kF32: return "float32";
    case DType::kF64: return "float64";
    case DType::kI32: return "int32";
    case DType::kI64: return "int64";
    case DType::kBool: return "bool";
  }
  return "unknown";
}

std::string Dims(const Shape& shape) {
  return absl::StrCat("[", absl::StrJoin(shape.dims(), ","), "]");
}

// Writes the tensors' bytes and returns their JSON descriptions.
absl::StatusOr<std::string> WriteTensors(const std::string& dir, const std::string& stem,
                                         const char* kind, const std::vector<std::string>& names,
                                         const std::vector<HostTensor>& tensors) {
  std::vector<std::string> entries;
  for (size_t k = 0; k < tensors.size(); ++k) {
    const std::string file = absl::StrCat(stem, ".", kind, k, ".bin");
    const absl::Span<const uint8_t> bytes = tensors[k].bytes();
    absl::Status s = WriteFileAtomically(
        absl::StrCat(dir, "/", file),
        std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!s.ok()) return s;
    entries.push_back(absl::StrCat("{\"name\":\"", names[k], "\",\"type\":\"",
                                   OrtTypeName(tensors[k].dtype()), "\",\"dims\":",
                                   Dims(tensors[k].shape()), ",\"file\":\"", file, "\"}"));
  }
  return absl::StrCat("[", absl::StrJoin(entries, ","), "]");
}

absl::Status WriteOne(const std::string& dir, uint64_t seed,
                      const generator::GeneratorOptions& options, std::string& refused) {
  absl::StatusOr<generator::GeneratedGraph> generated = generator::Generate(seed, options);
  if (!generated.ok()) return generated.status();
  const Graph& graph = generated->graph;
  absl::StatusOr<onnx::ModelProto> model = ExportModel(graph);
  if (!model.ok()) {
    absl::StrAppend(&refused, "seed ", seed, ": ", model.status().message(), "\n");
    return absl::OkStatus();
  }
  const std::string stem = absl::StrCat("m", seed);
  if (absl::Status s = WriteFileAtomically(absl::StrCat(dir, "/", stem, ".rk"), PrintInline(graph));
      !s.ok()) {
    return s;
  }
  std::string bytes;
  if (!model->SerializeToString(&bytes)) return absl::InternalError("serializing failed");
  if (absl::Status s = WriteFileAtomically(absl::StrCat(dir, "/", stem, ".onnx"), bytes); !s.ok()) {
    return s;
  }
  const std::vector<HostTensor> inputs = generated->MakeInputs(seed);
  absl::StatusOr<EvalResult> reference = Evaluate(graph, inputs);
  if (!reference.ok()) return reference.status();
  std::vector<std::string> in_names, out_names;
  for (const onnx::ValueInfoProto& v : model->graph().input()) in_names.push_back(v.name());
  for (const onnx::ValueInfoProto& v : model->graph().output()) out_names.push_back(v.name());
  absl::StatusOr<std::string> in_json = WriteTensors(dir, stem, "in", in_names, inputs);
  if (!in_json.ok()) return in_json.status();
  absl::StatusOr<std::string> out_json =
      WriteTensors(dir, stem, "out", out_names, reference->outputs);
  if (!out_json.ok()) return out_json.status();
  return WriteFileAtomically(absl::StrCat(dir, "/", stem, ".json"),
                             absl::StrCat("{\"model\":\"", stem, ".onnx\",\"inputs\":", *in_json,
                                          ",\"outputs\":", *out_json, "}\n"));
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: write_random_models DIR [--seed S] [--count N] [--nodes K] [--ops a,b]\n";
    return 2;
  }
  const std::string dir = argv[1];
  uint64_t seed = 1;
  int count = 100;
  generator::GeneratorOptions options;
  options.nodes = 16;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    bool ok = false;
    if (flag == "--seed") ok = absl::SimpleAtoi(argv[i + 1], &seed);
    if (flag == "--count") ok = absl::SimpleAtoi(argv[i + 1], &count);
    if (flag == "--nodes") ok = absl::SimpleAtoi(argv[i + 1], &options.nodes);
    if (flag == "--ops") {
      ok = true;
      for (absl::string_view name : absl::StrSplit(argv[i + 1], ',')) {
        std::optional<Op> op = ParseOp(std::string_view(name.data(), name.size()));
        ok = ok && op.has_value();
        if (op.has_value()) options.ops.push_back(*op);
      }
    }
    if (!ok) {
      std::cerr << "write_random_models: bad flag " << flag << " " << argv[i + 1] << "\n";
      return 2;
    }
  }
  if (absl::Status s = MakeDirs(dir); !s.ok()) {
    std::cerr << "write_random_models: " << s << "\n";
    return 2;
  }
  std::string refused;
  for (int k = 0; k < count; ++k) {
    if (absl::Status s = WriteOne(dir, seed + k, options, refused); !s.ok()) {
      std::cerr << "write_random_models: seed " << seed + k << ": " << s << "\n";
      return 1;
    }
  }
  if (absl::Status s = WriteFileAtomically(dir + "/refused.txt", refused); !s.ok()) {
    std::cerr << "write_random_models: " << s << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace rk::compiler::onnx_io

int main(int argc, char** argv) { return rk::compiler::onnx_io::Main(argc, argv); }
