#include "tools/graph_source.h"

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "compiler/ir/parser.h"
#include "repro/bundle/bundle.h"
#include "tools/onnx_source.h"

namespace rk::tools {

void GraphSourceFlags::Register(FlagSet& flags) {
  flags.Repeated("input-shape", &input_shapes,
                 "NAME=[d0,d1,...]: static shape of an ONNX model's input (binds symbolic dims)");
}

bool IsOnnxPath(const std::string& path) {
  return absl::EndsWith(absl::AsciiStrToLower(path), ".onnx");
}

absl::StatusOr<std::map<std::string, std::vector<int64_t>>> ParseInputShapes(
    const std::vector<std::string>& specs) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string& spec : specs) {
    const size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input-shape '", spec, "': expected NAME=[d0,d1,...]"));
    }
    const std::string name = spec.substr(0, eq);
    std::string dims_text = spec.substr(eq + 1);
    if (absl::StartsWith(dims_text, "[") && absl::EndsWith(dims_text, "]")) {
      dims_text = dims_text.substr(1, dims_text.size() - 2);
    }
    std::vector<int64_t> dims;
    if (!dims_text.empty()) {
      for (absl::string_view part : absl::StrSplit(dims_text, ',')) {
        int64_t d = 0;
        if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &d) || d < 0 ||
            d > (int64_t{1} << 40)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "--input-shape '", spec, "': '", std::string(part), "' is not a dim (0 to 2^40)"));
        }
        dims.push_back(d);
      }
    }
    if (!shapes.emplace(name, std::move(dims)).second) {
      return absl::InvalidArgumentError(absl::StrCat("--input-shape names '", name, "' twice"));
    }
  }
  return shapes;
}

absl::StatusOr<GraphSource> LoadGraphSource(const std::string& path,
                                            const GraphSourceFlags& flags) {
  RK_ASSIGN_OR_RETURN(auto shapes, ParseInputShapes(flags.input_shapes));
  if (IsOnnxPath(path)) return ImportOnnxSource(path, shapes);
  if (!shapes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--input-shape applies to ONNX models only; ", path,
                     " is a graph with static shapes"));
  }
  if (std::filesystem::is_directory(path)) {
    // Not a bundle (the commands that take bundles asked first): say why.
    if (std::filesystem::exists(std::filesystem::path(path) / "repro.json")) {
      absl::StatusOr<repro::LoadedBundle> bundle = repro::LoadBundle(path);
      if (!bundle.ok()) return bundle.status();
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path, " is a directory without a repro.json: not a graph, model or bundle"));
  }
  GraphSource source;
  RK_ASSIGN_OR_RETURN(source.graph, compiler::ParseFile(path));
  return source;
}

}  // namespace rk::tools
