#include "repro/standalone/standalone.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/json.h"
#include "compiler/reference/interpreter.h"
#include "repro/oracle/accuracy.h"
#include "repro/standalone/jax_source.h"
#include "repro/standalone/npy.h"
#include "repro/standalone/scripts.h"
#include "repro/standalone/torch_source.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;
using compiler::DType;
using compiler::HostTensor;

absl::Status WriteText(const fs::path& path, const std::string& text, bool executable = false) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  if (executable) {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
  }
  return absl::OkStatus();
}

// The backend options as a JSON object, without the adapters' planted bugs
// (which no released target has). Inductor's own planted bugs
// (`cpp.inject_relu_bug_TESTING_ONLY`, `triton.inject_relu_bug_TESTING_ONLY`)
// are settings of released PyTorch: they stay, or the repro.py of a bug
// planted that way would not reproduce. The jax repro.py applies the jax_xla
// adapter's planted relu fault itself (and says so), so that one stays too; a
// jax repro.py of another backend's bundle takes none of its options.
Json OptionsJson(const compiler::CompileOptions& options, StandaloneTarget target) {
  Json j = Json::MakeObject();
  const bool inductor = options.backend == "torch_inductor";
  const bool jax = absl::EndsWith(options.backend, "jax_xla") ||
                   absl::EndsWith(options.backend, "jax_xla/serve");
  if (target == StandaloneTarget::kXla && !jax) return j;
  for (const std::string& kv : options.backend_options) {
    const size_t colon = kv.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = kv.substr(0, colon);
    if (absl::StrContains(key, "TESTING_ONLY") && !(inductor && absl::StrContains(key, ".")) &&
        !(jax && key == "inject_relu_bug_TESTING_ONLY")) {
      continue;
    }
    j.Set(key, kv.substr(colon + 1));
  }
  return j;
}

// Root mean square of a - fp64 where fp64 is not NaN (accuracy.cc's rule).
double Rmse(const HostTensor& a, const HostTensor& fp64) {
  int64_t kept = 0;
  double sum = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    const double f = fp64.GetDouble(i), v = a.GetDouble(i);
    if (std::isnan(f)) continue;
    const double d = v == f ? 0.0 : v - f;
    sum += d * d;
    ++kept;
  }
  return kept == 0 ? 0 : std::sqrt(sum / static_cast<double>(kept));
}

struct References {
  std::vector<HostTensor> native;
  std::vector<HostTensor> fp64;
};

absl::StatusOr<References> ComputeReferences(const StandaloneRequest& r) {
  References refs;
  absl::StatusOr<compiler::EvalResult> native = compiler::Evaluate(r.graph, r.inputs);
  if (!native.ok()) return native.status();
  compiler::EvalOptions fp64_options;
  fp64_options.fp64 = true;
  absl::StatusOr<compiler::EvalResult> fp64 = compiler::Evaluate(r.graph, r.inputs, fp64_options);
  if (!fp64.ok()) return fp64.status();
  for (const auto* result : {&*native, &*fp64}) {
    if (result->undefined.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the reference meets ", result->undefined->Message(),
          ": no target can be judged against it, so there is nothing to reproduce"));
    }
  }
  refs.native = std::move(native->outputs);
  for (HostTensor& t : fp64->outputs) {
    refs.fp64.push_back(compiler::IsFloat(t.dtype()) ? t.ConvertTo(DType::kF64) : std::move(t));
  }
  return refs;
}

// Per output: names of its files and the policy's numbers.
Json OutputsJson(const StandaloneRequest& r, const References& refs) {
  Json outputs = Json::MakeArray();
  for (size_t i = 0; i < refs.native.size(); ++i) {
    const HostTensor& native = refs.native[i];
    const bool is_float = compiler::IsFloat(native.dtype());
    const double tol = r.tol > 0 ? r.tol : DefaultTolerance(native.dtype());
    const bool small = native.num_elements() < 1000;
    const double m = (compiler::IsLowPrecision(native.dtype()) || small || tol >= 2e-2) ? 3 : 2;
    const double rmse_reference = is_float ? Rmse(native, refs.fp64[i]) : 0;
    Json o = Json::MakeObject();
    o.Set("name", r.graph.DisplayName(r.graph.outputs()[i]));
    o.Set("dtype", std::string(compiler::DTypeName(native.dtype())));
    o.Set("float", is_float);
    o.Set("reference", absl::StrCat("reference_", i, ".npy"));
    o.Set("expected_fp64", absl::StrCat("expected_", i, ".npy"));
    o.Set("tol", tol);
    o.Set("m", m);
    o.Set("rmse_reference", rmse_reference);
    o.Set("bound", m * rmse_reference + tol / 10);
    outputs.push_back(std::move(o));
  }
  return outputs;
}

std::string ReadmeText(const StandaloneRequest& r, const std::string& settings,
                       const std::string& run) {
  return absl::StrCat(
      "# Standalone reproducer\n\n"
      "Written by `reprokit export --standalone` from a minimized repro.\n\n"
      "- graph: ", r.graph.num_nodes(), " nodes, ", r.graph.num_inputs(), " inputs, ",
      r.graph.outputs().size(), " outputs\n"
      "- settings: ", settings, "\n",
      r.recorded.empty() ? "" : absl::StrCat("- reprokit saw: ", r.recorded, "\n"),
      "\nRun:\n\n", run,
      "\nExit 1 while the discrepancy is present, 0 once fixed. The expected values are an\n"
      "fp64 evaluation (expected_*.npy) and one in the graph's own dtypes\n"
      "(reference_*.npy); an output passes when it is allclose to the latter, else\n"
      "when its RMSE against fp64 is within the bound in expected.json (m x the\n"
      "own-dtype reference's RMSE + tol/10).\n");
}

absl::Status WriteTensors(const fs::path& dir, const std::string& stem,
                          const std::vector<HostTensor>& tensors, std::vector<std::string>* files,
                          Json* names) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string name = absl::StrCat(stem, "_", i, ".npy");
    if (absl::Status s = WriteNpy(tensors[i], (dir / name).string()); !s.ok()) return s;
    files->push_back(name);
    if (names != nullptr) names->push_back(name);
  }
  return absl::OkStatus();
}

// A Python form's constants as const_<id>.npy; the spec's "constants" object.
absl::StatusOr<Json> WriteConstants(
    const fs::path& dir, const std::vector<std::pair<int, HostTensor>>& values,
    std::vector<std::string>* files) {
  Json constants = Json::MakeObject();
  for (const auto& [id, value] : values) {
    const std::string name = absl::StrCat("const_", id, ".npy");
    if (absl::Status s = WriteNpy(value, (dir / name).string()); !s.ok()) return s;
    files->push_back(name);
    Json c = Json::MakeObject();
    c.Set("file", name);
    c.Set("dtype", std::string(compiler::DTypeName(value.dtype())));
    constants.Set(absl::StrCat(id), std::move(c));
  }
  return constants;
}

}  // namespace

absl::StatusOr<StandaloneTarget> ParseStandaloneTarget(const std::string& backend) {
  std::string name = backend;
  if (absl::StrContains(name, '/')) {
    fs::path p(name);
    name = p.filename() == "serve" ? p.parent_path().filename().string() : p.filename().string();
  }
  if (name == "onnxruntime") return StandaloneTarget::kOnnxRuntime;
  if (name == "torch_inductor") return StandaloneTarget::kInductor;
  if (name == "jax_xla") return StandaloneTarget::kXla;
  return absl::InvalidArgumentError(absl::StrCat(
      "no standalone form for target \"", backend.empty() ? "builtin" : backend,
      "\": the forms are onnxruntime, torch_inductor and jax_xla (--target names one for a "
      "bundle of another backend)"));
}

absl::StatusOr<std::vector<std::string>> WriteStandalone(const StandaloneRequest& r,
                                                         const std::string& dir_text) {
  const fs::path dir(dir_text);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir_text, " exists and is not empty: name a new directory"));
  }
  // The references first: a refused graph leaves no directory behind.
  absl::StatusOr<References> refs = ComputeReferences(r);
  if (!refs.ok()) return refs.status();
  fs::create_directories(dir, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat("cannot create ", dir_text, ": ",
                                                         ec.message()));

  std::vector<std::string> files;
  Json spec = Json::MakeObject();
  spec.Set("format", "reprokit-standalone");
  spec.Set("device", r.options.device);
  spec.Set("options", OptionsJson(r.options, r.target));
  Json inputs = Json::MakeArray();
  if (absl::Status s = WriteTensors(dir, "input", r.inputs, &files, &inputs); !s.ok()) return s;
  spec.Set("inputs", std::move(inputs));
  Json input_dtypes = Json::MakeArray();  // bf16 inputs are stored as f32
  for (const HostTensor& t : r.inputs) {
    input_dtypes.push_back(std::string(compiler::DTypeName(t.dtype())));
  }
  spec.Set("input_dtypes", std::move(input_dtypes));
  if (absl::Status s = WriteTensors(dir, "reference", refs->native, &files, nullptr); !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteTensors(dir, "expected", refs->fp64, &files, nullptr); !s.ok()) {
    return s;
  }
  spec.Set("outputs", OutputsJson(r, *refs));
  spec.Set("recorded", r.recorded);

  std::string settings, run;
  if (r.target == StandaloneTarget::kOnnxRuntime) {
    spec.Set("target", "onnxruntime");
    if (!r.write_onnx) return absl::InternalError("no ONNX exporter given");
    if (absl::Status s = r.write_onnx((dir / "model.onnx").string()); !s.ok()) return s;
    files.push_back("model.onnx");
    if (absl::Status s = WriteText(dir / "repro.py",
                                   absl::StrCat(kOrtHeadPy, kJudgePy, kOrtMainPy), true);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = WriteText(dir / "repro.js", kOrtReproJs, true); !s.ok()) return s;
    files.push_back("repro.py");
    files.push_back("repro.js");
    const Json* level = spec.Find("options")->Find("graph_optimization_level");
    settings = absl::StrCat("graph_optimization_level=",
                            level != nullptr ? level->string_value() : "all", ", provider ",
                            r.options.device == "cuda" ? "CUDA" : "CPU");
    run = "    python3 repro.py        # onnxruntime + numpy\n"
          "    NODE_PATH=/path/to/node_modules node repro.js   # onnxruntime-node\n";
  } else if (r.target == StandaloneTarget::kXla) {
    spec.Set("target", "jax_xla");
    absl::StatusOr<JaxSource> source = GraphAsJax(r.graph);
    if (!source.ok()) return source.status();
    absl::StatusOr<Json> constants = WriteConstants(dir, source->constants, &files);
    if (!constants.ok()) return constants.status();
    spec.Set("constants", *std::move(constants));
    if (absl::Status s = WriteText(dir / "repro.py",
                                   absl::StrCat(kJaxHeadPy, kJudgePy, source->make_graph,
                                                kJaxMainPy),
                                   true);
        !s.ok()) {
      return s;
    }
    files.push_back("repro.py");
    settings = absl::StrCat("jax.jit (XLA) on ", r.options.device, ", options ",
                            spec.Find("options")->Dump());
    run = "    python3 repro.py        # jax + numpy\n";
  } else {
    spec.Set("target", "torch_inductor");
    absl::StatusOr<TorchSource> source = GraphAsTorch(r.graph);
    if (!source.ok()) return source.status();
    absl::StatusOr<Json> constants = WriteConstants(dir, source->constants, &files);
    if (!constants.ok()) return constants.status();
    spec.Set("constants", *std::move(constants));
    if (absl::Status s = WriteText(dir / "repro.py",
                                   absl::StrCat(kTorchHeadPy, kJudgePy, source->make_graph,
                                                kTorchMainPy),
                                   true);
        !s.ok()) {
      return s;
    }
    files.push_back("repro.py");
    settings = absl::StrCat("torch.compile on ", r.options.device, ", inductor config ",
                            spec.Find("options")->Dump());
    run = "    python3 repro.py        # torch + numpy\n";
  }
  if (absl::Status s = WriteText(dir / "expected.json", spec.DumpPretty() + "\n"); !s.ok()) {
    return s;
  }
  files.push_back("expected.json");
  if (absl::Status s = WriteText(dir / "README.md", ReadmeText(r, settings, run)); !s.ok()) {
    return s;
  }
  files.push_back("README.md");
  return files;
}

}  // namespace rk::repro
