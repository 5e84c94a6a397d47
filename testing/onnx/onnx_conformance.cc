// onnx_conformance: runs ONNX's own backend node tests (written by
// make_node_cases.py) through reprokit: import, compile for a device, run on
// the case's inputs, compare with ONNX's expected outputs (the case's rtol and
// atol, NaN equal to NaN). Prints a table per ONNX op (docs/ONNX.md keeps it)
// and exits 1 when any case of a supported op fails.
//
//   onnx_conformance CASES_DIR [--device cpu|cuda] [--markdown FILE] [--verbose]
//
// Case outcomes: pass; fail (compile or run error, wrong values, wrong dtype);
// skipped with the importer's reason (an attribute or input form it refuses,
// a dynamic shape, a dtype reprokit lacks); unsupported (an op the importer
// does not convert). A case the manifest marks "must_run" (reprokit's own
// cases of opsets 18 to 21) fails where it would be skipped or unsupported.
//
// Run by testing/onnx/conformance_test.sh.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/json.h"
#include "compiler/driver/compile.h"
#include "compiler/onnx/importer.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/onnx_tensor.h"
#include "compiler/reference/interpreter.h"

namespace rk::onnx_conformance {
namespace {

namespace fs = std::filesystem;
using compiler::HostTensor;

enum class Outcome { kPass, kFail, kSkipped, kUnsupported };

struct CaseResult {
  std::string name;
  std::string op;
  Outcome outcome = Outcome::kPass;
  std::string reason;
};

// The first line of an importer error, without the file prefix.
std::string Reason(const absl::Status& status) {
  std::string message(status.message());
  message = std::string(*absl::StrSplit(message, '\n').begin());
  const size_t colon = message.find(".onnx: ");
  if (colon != std::string::npos) message = message.substr(colon + 7);
  return message;
}

absl::StatusOr<HostTensor> ReadTensor(const fs::path& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path.string());
  if (!bytes.ok()) return bytes.status();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(*bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(path.string(), ": not a TensorProto"));
  }
  return compiler::onnx_io::TensorFromProto(proto, path.parent_path().string());
}

std::vector<HostTensor> ReadAll(const fs::path& dir, const char* prefix, absl::Status* error) {
  std::vector<HostTensor> out;
  for (int i = 0;; ++i) {
    const fs::path p = dir / absl::StrCat(prefix, "_", i, ".pb");
    if (!fs::exists(p)) break;
    absl::StatusOr<HostTensor> t = ReadTensor(p);
    if (!t.ok()) {
      *error = t.status();
      return {};
    }
    out.push_back(*std::move(t));
  }
  return out;
}

// Empty when `actual` matches `expected`.
std::string Compare(const HostTensor& actual, const HostTensor& expected, double rtol,
                    double atol) {
  if (actual.dtype() != expected.dtype()) {
    return absl::StrCat("dtype ", std::string(compiler::DTypeName(actual.dtype())), ", expected ",
                        std::string(compiler::DTypeName(expected.dtype())));
  }
  if (actual.shape() != expected.shape()) {
    return absl::StrCat("shape ", actual.shape().ToString(), ", expected ",
                        expected.shape().ToString());
  }
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    const double a = actual.GetDouble(i), e = expected.GetDouble(i);
    if (std::isnan(a) && std::isnan(e)) continue;
    if (a == e) continue;
    if (!compiler::IsFloat(actual.dtype()) || !(std::abs(a - e) <= atol + rtol * std::abs(e))) {
      return absl::StrCat("element ", i, ": ", a, ", expected ", e);
    }
  }
  return "";
}

CaseResult RunCase(const fs::path& dir, const std::string& name, const std::string& op,
                   double rtol, double atol, bool tensors, const std::string& device,
                   const std::set<std::string>& supported) {
  CaseResult r{name, op};
  absl::StatusOr<onnx::ModelProto> model =
      compiler::onnx_io::ReadModelFile((dir / "model.onnx").string());
  if (!model.ok()) {
    r.outcome = Outcome::kSkipped;
    r.reason = Reason(model.status());
    return r;
  }
  std::set<std::string> missing;
  for (const onnx::NodeProto& n : model->graph().node()) {
    if (!supported.count(n.op_type()) || !(n.domain().empty() || n.domain() == "ai.onnx")) {
      missing.insert(n.op_type());
    }
  }
  if (!missing.empty()) {
    r.outcome = Outcome::kUnsupported;
    r.reason = absl::StrCat("uses ", absl::StrJoin(missing, ", "));
    return r;
  }
  if (!tensors) {
    r.outcome = Outcome::kSkipped;
    r.reason = "inputs or outputs are not tensors (sequences, optionals)";
    return r;
  }
  for (int k = 0; fs::exists(dir / absl::StrCat("test_data_set_", k)); ++k) {
    const fs::path data = dir / absl::StrCat("test_data_set_", k);
    absl::Status error;
    std::vector<HostTensor> inputs = ReadAll(data, "input", &error);
    std::vector<HostTensor> expected = ReadAll(data, "output", &error);
    if (!error.ok()) {
      r.outcome = Outcome::kSkipped;
      r.reason = Reason(error);
      return r;
    }
    // ONNX's node tests feed shape-like operands (a Reshape's shape, a
    // Slice's starts, ...) as graph inputs; reprokit's shapes are static, so
    // an input the importer needs as a constant becomes an initializer with
    // the case's value.
    onnx::ModelProto bound = *model;
    std::vector<std::string> names;
    for (const onnx::ValueInfoProto& v : bound.graph().input()) names.push_back(v.name());
    if (inputs.size() != names.size()) {
      r.outcome = Outcome::kSkipped;
      r.reason = absl::StrCat(inputs.size(), " input files for ", names.size(), " model inputs");
      return r;
    }
    std::vector<bool> kept(names.size(), true);
    absl::StatusOr<compiler::onnx_io::ImportedModel> imported;
    for (int attempt = 0;; ++attempt) {
      compiler::onnx_io::ImportOptions options;
      options.model_dir = dir.string();
      imported = compiler::onnx_io::ImportModel(bound, options);
      if (imported.ok() || attempt == 8) break;
      const std::string message(imported.status().message());
      const size_t open = message.find("('"), close = message.find("') must be a constant");
      if (open == std::string::npos || close == std::string::npos) break;
      const std::string name = message.substr(open + 2, close - open - 2);
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end() || !kept[it - names.begin()]) break;
      const size_t i = it - names.begin();
      kept[i] = false;
      *bound.mutable_graph()->add_initializer() = compiler::onnx_io::TensorToProto(inputs[i], name);
      auto* graph_inputs = bound.mutable_graph()->mutable_input();
      for (int j = 0; j < graph_inputs->size(); ++j) {
        if (graph_inputs->Get(j).name() == name) {
          graph_inputs->DeleteSubrange(j, 1);
          break;
        }
      }
    }
    if (!imported.ok()) {
      r.outcome = Outcome::kSkipped;
      r.reason = Reason(imported.status());
      return r;
    }
    std::vector<HostTensor> fed;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (kept[i]) fed.push_back(inputs[i]);
    }
    const compiler::Graph& graph = imported->graph;
    for (size_t i = 0; i < fed.size(); ++i) {
      if (fed[i].type() != graph.type(graph.inputs()[i])) {
        r.outcome = Outcome::kSkipped;
        r.reason = absl::StrCat("input ", i, " is ", fed[i].type().ToString(),
                                ", the model declares ", graph.type(graph.inputs()[i]).ToString());
        return r;
      }
    }
    compiler::CompileOptions compile_options;
    if (absl::Status s = compile_options.Set("device", device); !s.ok()) {
      r.outcome = Outcome::kFail;
      r.reason = std::string(s.message());
      return r;
    }
    absl::StatusOr<compiler::Executable> exe = compiler::Compile(graph, compile_options);
    if (!exe.ok()) {
      r.outcome = Outcome::kFail;
      r.reason = absl::StrCat("compile: ", Reason(exe.status()));
      return r;
    }
    absl::StatusOr<std::vector<HostTensor>> outputs = exe->Run(fed);
    if (!outputs.ok()) {
      r.outcome = Outcome::kFail;
      r.reason = absl::StrCat("run: ", Reason(outputs.status()));
      return r;
    }
    if (outputs->size() != expected.size()) {
      r.outcome = Outcome::kFail;
      r.reason = absl::StrCat(outputs->size(), " outputs, expected ", expected.size());
      return r;
    }
    for (size_t o = 0; o < expected.size(); ++o) {
      std::string mismatch = Compare((*outputs)[o], expected[o], rtol, atol);
      if (!mismatch.empty()) {
        // Whether our own reference agrees tells a compiler bug from a
        // disagreement about the op's meaning.
        absl::StatusOr<compiler::EvalResult> ref = compiler::Evaluate(graph, fed);
        const bool ref_agrees =
            ref.ok() && Compare(ref->outputs[o], expected[o], rtol, atol).empty();
        r.outcome = Outcome::kFail;
        r.reason = absl::StrCat("output ", o, " ", mismatch,
                                ref_agrees ? " (the reference interpreter agrees with ONNX)"
                                           : " (the reference interpreter disagrees too)");
        return r;
      }
    }
  }
  return r;
}

int Main(int argc, char** argv) {
  std::string cases_dir, device = "cpu", markdown;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc) {
      device = argv[++i];
    } else if (arg == "--markdown" && i + 1 < argc) {
      markdown = argv[++i];
    } else if (arg == "--verbose") {
      verbose = true;
    } else if (cases_dir.empty() && arg[0] != '-') {
      cases_dir = arg;
    } else {
      std::fprintf(stderr, "usage: onnx_conformance CASES_DIR [--device cpu|cuda] "
                           "[--markdown FILE] [--verbose]\n");
      return 2;
    }
  }
  if (cases_dir.empty()) {
    std::fprintf(stderr, "usage: onnx_conformance CASES_DIR [--device D] [--markdown FILE]\n");
    return 2;
  }
  absl::StatusOr<std::string> text = ReadFileToString((fs::path(cases_dir) / "manifest.json").string());
  if (!text.ok()) {
    std::fprintf(stderr, "onnx_conformance: %s\n", std::string(text.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<Json> manifest = ParseJson(*text);
  if (!manifest.ok() || !manifest->is_array()) {
    std::fprintf(stderr, "onnx_conformance: bad manifest.json\n");
    return 2;
  }
  const std::vector<std::string> types = compiler::onnx_io::SupportedOpTypes();
  const std::set<std::string> supported(types.begin(), types.end());
  std::vector<CaseResult> results;
  for (const Json& entry : manifest->array()) {
    const std::string name = entry.GetString("name").value_or("");
    results.push_back(RunCase(fs::path(cases_dir) / name, name, entry.GetString("op").value_or(""),
                              entry.GetDouble("rtol").value_or(1e-3),
                              entry.GetDouble("atol").value_or(1e-7),
                              entry.GetBool("tensors").value_or(true), device, supported));
    CaseResult& last = results.back();
    if (entry.GetBool("must_run").value_or(false) &&
        (last.outcome == Outcome::kSkipped || last.outcome == Outcome::kUnsupported)) {
      last.outcome = Outcome::kFail;
      last.reason = absl::StrCat("must run, but: ", last.reason);
    }
    if (verbose) {
      std::fprintf(stderr, "%s: %d %s\n", name.c_str(), static_cast<int>(results.back().outcome),
                   results.back().reason.c_str());
    }
  }

  struct Row {
    int total = 0, pass = 0, fail = 0, skipped = 0, unsupported = 0;
    std::map<std::string, int> skip_reasons;
  };
  std::map<std::string, Row> rows;
  int total = 0, pass = 0, fail = 0, skipped = 0, unsupported = 0;
  std::set<std::string> unsupported_ops;
  for (const CaseResult& r : results) {
    Row& row = rows[r.op];
    ++row.total;
    ++total;
    switch (r.outcome) {
      case Outcome::kPass: ++row.pass, ++pass; break;
      case Outcome::kFail: ++row.fail, ++fail; break;
      case Outcome::kSkipped:
        ++row.skipped, ++skipped;
        ++row.skip_reasons[r.reason];
        break;
      case Outcome::kUnsupported: ++row.unsupported, ++unsupported; break;
    }
  }
  std::string md = absl::StrCat(
      "| ONNX op | passed / run | skipped (why) |\n| --- | --- | --- |\n");
  int supported_cases = 0, supported_ops = 0;
  for (const auto& [op, row] : rows) {
    if (!supported.count(op)) {
      unsupported_ops.insert(op);
      continue;
    }
    ++supported_ops;
    supported_cases += row.total;
    std::vector<std::string> why;
    for (const auto& [reason, n] : row.skip_reasons) why.push_back(absl::StrCat(n, ": ", reason));
    absl::StrAppend(&md, "| ", op, " | ", row.pass, " / ", row.pass + row.fail,
                    row.unsupported > 0 ? absl::StrCat(" (", row.unsupported, " use other ops)") : "",
                    " | ", row.skipped == 0 ? "" : absl::StrJoin(why, "; "), " |\n");
  }
  absl::StrAppend(&md, "\nDevice ", device, ": ", total, " cases; ", supported_ops,
                  " supported ops with ", supported_cases, " cases: ", pass, " passed, ", fail,
                  " failed, ", skipped, " skipped; ", unsupported,
                  " cases use an op the importer does not convert (",
                  unsupported_ops.size(), " ops: ", absl::StrJoin(unsupported_ops, ", "), ").\n");
  std::fputs(md.c_str(), stdout);
  for (const CaseResult& r : results) {
    if (r.outcome == Outcome::kFail) {
      std::printf("FAIL %s (%s): %s\n", r.name.c_str(), r.op.c_str(), r.reason.c_str());
    }
  }
  if (!markdown.empty()) {
    if (absl::Status s = WriteFileAtomically(markdown, md); !s.ok()) {
      std::fprintf(stderr, "onnx_conformance: %s\n", std::string(s.message()).c_str());
      return 2;
    }
  }
  std::printf("%d passed, %d failed, %d skipped, %d unsupported\n", pass, fail, skipped,
              unsupported);
  return fail == 0 ? 0 : 1;
}

}  // namespace
}  // namespace rk::onnx_conformance

int main(int argc, char** argv) { return rk::onnx_conformance::Main(argc, argv); }
