#include "repro/triage/triage.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"
#include "compiler/ir/op.h"

namespace rk::repro {
namespace {

using compiler::CompileOptions;

// An ordered optimization knob: its option and values, lowest first (the
// first value turns optimization off).
struct LevelKnob {
  std::string option;  // a backend option, or "opt_level" for the built-in compiler
  std::vector<std::string> values;
};

// Inductor's knobs that matter, each with the value that differs from the
// default: deterministic random ops, scalar CPU code, CUDA graphs on.
struct KnobProbe {
  const char* option;
  const char* value;
  const char* device;  // "" any, else only on this device
};
// XLA's (jax_xla), each where this jaxlib takes it: the backend's LLVM at -O0,
// bf16/f16 rounded at every op, GPU autotuning off, no Triton matmuls,
// deterministic GPU kernels.
constexpr KnobProbe kKnobProbes[] = {
    {"fallback_random", "True", ""},
    {"cpp.simdlen", "1", "cpu"},
    {"triton.cudagraphs", "True", "cuda"},
    {"xla_backend_optimization_level", "0", ""},
    {"xla_allow_excess_precision", "false", ""},
    {"xla_gpu_autotune_level", "0", "cuda"},
    {"xla_gpu_enable_triton_gemm", "false", "cuda"},
    {"xla_gpu_deterministic_ops", "true", "cuda"},
};

// Sets backend option `key` (replacing its earlier value).
CompileOptions WithBackendOption(CompileOptions options, const std::string& key,
                                 const std::string& value) {
  std::vector<std::string>& opts = options.backend_options;
  opts.erase(std::remove_if(opts.begin(), opts.end(),
                            [&](const std::string& o) { return absl::StartsWith(o, key + ":"); }),
             opts.end());
  opts.push_back(key + ":" + value);
  std::sort(opts.begin(), opts.end());
  return options;
}

bool Fails(const TriageRow& row) { return row.judged && IsFailure(row.verdict.kind); }
bool Passes(const TriageRow& row) {
  return row.judged && row.verdict.kind == VerdictKind::kPass;
}

// The indices of failing outputs (for "fails the same way").
std::set<int> FailingOutputs(const Verdict& v) {
  std::set<int> out;
  for (const OutputVerdict& o : v.outputs) {
    if (o.metrics.judgement == Judgement::kFail) out.insert(o.index);
  }
  return out;
}

bool SameFailure(const Verdict& a, const Verdict& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == VerdictKind::kAccuracy) return FailingOutputs(a) == FailingOutputs(b);
  return true;
}

bool HasOp(const compiler::Graph& graph, std::initializer_list<std::string_view> names,
           std::string* found) {
  for (const compiler::Node& node : graph.nodes()) {
    const std::string_view name = compiler::OpName(node.op);
    for (std::string_view n : names) {
      if (name == n) {
        *found = std::string(n);
        return true;
      }
    }
  }
  return false;
}

bool MentionsNaN(const Verdict& v) {
  if (absl::StrContains(v.message, "NaN")) return true;
  for (const OutputVerdict& o : v.outputs) {
    if (absl::StrContains(o.metrics.reason, "NaN")) return true;
  }
  return false;
}

// A documented difference of meaning in play, or "".
// Whether an accuracy failure shows on a float output. An output compared
// exactly (bool, integers) depends on the roundings the graph asks for (a cast
// to f16 before a comparison), which the graph promoted to f64 no longer has:
// its agreeing with fp64 says nothing there, so such a failure is never
// "precision" (ONNX Runtime's elided f32->f16 cast was classed so).
bool FailsOnAFloatOutput(const Verdict& v) {
  for (const OutputVerdict& o : v.outputs) {
    if (o.metrics.judgement == Judgement::kPass) continue;
    std::optional<compiler::DType> dtype = compiler::ParseDType(o.dtype);
    if (!dtype.has_value() || compiler::IsFloat(*dtype)) return true;
  }
  return false;
}

std::string SemanticsDifference(const compiler::Graph& graph, const Verdict& v) {
  if (v.kind != VerdictKind::kAccuracy) return "";
  std::string op;
  if (MentionsNaN(v) &&
      HasOp(graph, {"maximum", "minimum", "reduce_max", "reduce_min", "clip", "argmax"}, &op)) {
    return absl::StrCat("NaN propagation of ", op,
                        " (docs/COMPILER.md, \"Numerics\"): the target and reprokit differ on "
                        "which operand wins");
  }
  if (HasOp(graph, {"round"}, &op)) {
    bool half_steps = !v.outputs.empty();
    for (const OutputVerdict& o : v.outputs) {
      if (o.metrics.judgement == Judgement::kFail && o.metrics.max_abs_error > 1 + 1e-6) {
        half_steps = false;
      }
    }
    if (half_steps) {
      return "rounding mode of round (reprokit rounds halves to even): every wrong element "
             "is off by at most 1";
    }
  }
  return "";
}

std::string Row0Kind(const Verdict& v) {
  std::string kind(VerdictKindName(v.kind));
  if (!v.accuracy_subkind.empty()) absl::StrAppend(&kind, " (", v.accuracy_subkind, ")");
  return kind;
}

}  // namespace

std::string_view TriageClassName(TriageClass c) {
  switch (c) {
    case TriageClass::kOptimizerBug: return "optimizer bug";
    case TriageClass::kKernelBug: return "kernel bug";
    case TriageClass::kProviderSpecific: return "provider-specific";
    case TriageClass::kPrecision: return "precision";
    case TriageClass::kSemanticsDifference: return "semantics difference";
    case TriageClass::kDoesNotReproduce: return "does not reproduce";
    case TriageClass::kHarnessFault: return "harness fault";
    case TriageClass::kCannotJudge: return "cannot judge";
  }
  return "cannot judge";
}

bool IsRealFailure(TriageClass c) {
  return c == TriageClass::kOptimizerBug || c == TriageClass::kKernelBug ||
         c == TriageClass::kProviderSpecific;
}

std::vector<TriageProbe> PlanProbes(const CompileOptions& recorded, const BackendHello* hello) {
  std::vector<TriageProbe> probes;
  probes.push_back({ProbeGroup::kRecorded, "as recorded", -1, recorded});

  LevelKnob level;
  if (hello == nullptr) {
    level = {"opt_level", {"0", "1", "2"}};
  } else if (hello->FindOption("graph_optimization_level") != nullptr) {
    level = {"graph_optimization_level", {"disable", "basic", "extended", "all"}};
  } else if (hello->FindOption("compile_backend") != nullptr) {
    level = {"compile_backend", {"aot_eager", "inductor"}};
  } else if (hello->FindOption("jit") != nullptr) {
    level = {"jit", {"false", "true"}};  // jax_xla: op by op, then one XLA program
  }
  for (size_t i = 0; i < level.values.size(); ++i) {
    CompileOptions options = recorded;
    if (hello == nullptr) {
      options.opt_level = static_cast<int>(i);
    } else {
      options = WithBackendOption(recorded, level.option, level.values[i]);
    }
    probes.push_back({ProbeGroup::kLevel, absl::StrCat(level.option, "=", level.values[i]),
                      static_cast<int>(i), options});
  }

  std::vector<std::string> devices = {"cpu", "cuda"};
  if (hello != nullptr) devices = hello->devices;
  for (const std::string& device : devices) {
    if (device == recorded.device) continue;
    CompileOptions options = recorded;
    options.device = device;
    probes.push_back({ProbeGroup::kDevice, "device=" + device, -1, options});
  }

  if (hello != nullptr) {
    for (const KnobProbe& knob : kKnobProbes) {
      if (hello->FindOption(knob.option) == nullptr) continue;
      if (*knob.device != '\0' && recorded.device != knob.device) continue;
      probes.push_back({ProbeGroup::kKnob, absl::StrCat(knob.option, "=", knob.value), -1,
                        WithBackendOption(recorded, knob.option, knob.value)});
    }
    CompileOptions builtin = recorded;
    builtin.backend.clear();
    builtin.backend_options.clear();
    probes.push_back({ProbeGroup::kRoute, "builtin (reprokit's compiler)", -1, builtin});
  }
  return probes;
}

Triage Classify(const compiler::Graph& graph, std::vector<TriageRow> rows) {
  Triage t;
  t.rows = std::move(rows);
  if (t.rows.empty() || t.rows[0].probe.group != ProbeGroup::kRecorded) {
    t.cls = TriageClass::kCannotJudge;
    t.explanation = "no row for the recorded configuration";
    return t;
  }
  const TriageRow& recorded = t.rows[0];
  if (!recorded.judged) {
    t.cls = TriageClass::kCannotJudge;
    t.explanation = "the recorded configuration could not be judged: " + recorded.error;
    return t;
  }
  const Verdict& v = recorded.verdict;
  if (v.kind == VerdictKind::kCannotJudge) {
    t.cls = TriageClass::kCannotJudge;
    t.explanation = "the recorded configuration is cannot_judge: " + v.message;
    return t;
  }
  if (v.kind == VerdictKind::kPass) {
    t.cls = TriageClass::kDoesNotReproduce;
    t.explanation = "the recorded configuration passes";
    return t;
  }
  if (std::string why = SemanticsDifference(graph, v); !why.empty()) {
    t.cls = TriageClass::kSemanticsDifference;
    t.explanation = why + "; for the numerics contract, not the bug list";
    return t;
  }
  if (v.kind == VerdictKind::kAccuracy && v.accuracy_subkind == "precision" &&
      FailsOnAFloatOutput(v)) {
    t.cls = TriageClass::kPrecision;
    t.explanation =
        "the graph promoted to f64 agrees with the fp64 reference: the error is the dtype's "
        "own rounding";
    return t;
  }
  for (const TriageRow& row : t.rows) {
    if (row.probe.group == ProbeGroup::kRoute && Fails(row) &&
        SameFailure(row.verdict, v)) {
      t.cls = TriageClass::kHarnessFault;
      t.explanation = absl::StrCat(
          "the built-in compiler fails the same way (", Row0Kind(row.verdict),
          "): two compilers agree against the reference or the judging rule");
      return t;
    }
  }
  std::vector<std::string> passing_devices;
  for (const TriageRow& row : t.rows) {
    if (row.probe.group == ProbeGroup::kDevice && Passes(row)) {
      passing_devices.push_back(row.probe.options.device);
    }
  }
  if (!passing_devices.empty()) {
    t.cls = TriageClass::kProviderSpecific;
    t.explanation = absl::StrCat("fails on ", recorded.probe.options.device, " only (passes on ",
                                 absl::StrJoin(passing_devices, ", "), ")");
    return t;
  }
  std::vector<const TriageRow*> levels;
  for (const TriageRow& row : t.rows) {
    if (row.probe.group == ProbeGroup::kLevel && row.judged &&
        row.verdict.kind != VerdictKind::kCannotJudge) {
      levels.push_back(&row);
    }
  }
  if (levels.empty()) {
    t.cls = TriageClass::kKernelBug;
    t.explanation = "fails as recorded (no optimization level could be varied)";
    return t;
  }
  std::vector<std::string> failing, passing;
  for (const TriageRow* row : levels) {
    std::string value = row->probe.label.substr(row->probe.label.find('=') + 1);
    // A bool knob (jax_xla's jit) reads as its setting: "from level jit=true".
    if (value == "true" || value == "false") value = row->probe.label;
    (Fails(*row) ? failing : passing).push_back(value);
  }
  if (passing.empty()) {
    t.cls = TriageClass::kKernelBug;
    t.explanation = "fails at every level (" + absl::StrJoin(failing, ", ") + ")";
    return t;
  }
  if (failing.empty()) {
    // Only the recorded row fails: another knob than the level makes it.
    t.cls = TriageClass::kOptimizerBug;
    t.explanation = "fails only as recorded (every level alone passes: " +
                    absl::StrJoin(passing, ", ") + ")";
    return t;
  }
  const TriageRow* lowest = levels.front();
  if (Passes(*lowest)) {
    // Monotone: every level from the first failing one fails.
    size_t first = 0;
    while (first < levels.size() && !Fails(*levels[first])) ++first;
    bool monotone = true;
    for (size_t i = first; i < levels.size(); ++i) monotone = monotone && Fails(*levels[i]);
    t.cls = TriageClass::kOptimizerBug;
    t.explanation = monotone ? "fails only with optimizations from level " + failing.front()
                             : "fails only at levels " + absl::StrJoin(failing, ", ");
    return t;
  }
  t.cls = TriageClass::kKernelBug;
  t.explanation = "fails without optimizations (" + absl::StrJoin(failing, ", ") +
                  "), passes at " + absl::StrJoin(passing, ", ");
  return t;
}

Triage RunTriage(const compiler::Graph& graph, const std::vector<TriageProbe>& probes,
                 const TriageJudge& judge) {
  std::vector<TriageRow> rows;
  std::map<std::string, size_t> judged;  // options text -> row already judged
  for (const TriageProbe& probe : probes) {
    TriageRow row;
    row.probe = probe;
    const std::string key = probe.options.ToString();
    if (auto it = judged.find(key); it != judged.end()) {
      row.judged = rows[it->second].judged;
      row.verdict = rows[it->second].verdict;
      row.error = rows[it->second].error;
    } else {
      absl::StatusOr<Verdict> verdict = judge(probe.options);
      if (verdict.ok()) {
        row.judged = true;
        row.verdict = *std::move(verdict);
      } else {
        row.error = std::string(verdict.status().message());
      }
      judged[key] = rows.size();
    }
    rows.push_back(std::move(row));
  }
  return Classify(graph, std::move(rows));
}

std::string FormatTriage(const Triage& t) {
  std::string out = absl::StrFormat("target:   %s\n\n  %-36s %-26s %s\n", t.target, "probe",
                                    "verdict", "evidence");
  for (const TriageRow& row : t.rows) {
    std::string verdict = row.judged ? Row0Kind(row.verdict) : "not judged";
    std::string evidence = row.judged ? row.verdict.message : row.error;
    if (row.judged && row.verdict.kind == VerdictKind::kPass) evidence.clear();
    // One line per row: messages of external compilers carry newlines.
    std::replace(evidence.begin(), evidence.end(), '\n', ' ');
    evidence = std::string(absl::StripAsciiWhitespace(evidence));
    // Long messages keep their head and their tail, where errors name the cause.
    if (evidence.size() > 100) {
      evidence = evidence.substr(0, 45) + " ... " + evidence.substr(evidence.size() - 50);
    }
    absl::StrAppendFormat(&out, "  %-36s %-26s %s\n", row.probe.label, verdict, evidence);
  }
  absl::StrAppendFormat(&out, "\nclass:    %s\nbecause:  %s\n", TriageClassName(t.cls),
                        t.explanation);
  return out;
}

Json TriageToJson(const Triage& t) {
  Json j = Json::MakeObject();
  j.Set("class", std::string(TriageClassName(t.cls)));
  j.Set("real_failure", IsRealFailure(t.cls));
  j.Set("explanation", t.explanation);
  j.Set("target", t.target);
  Json rows = Json::MakeArray();
  for (const TriageRow& row : t.rows) {
    Json r = Json::MakeObject();
    r.Set("probe", row.probe.label);
    r.Set("options", row.probe.options.ToString());
    r.Set("judged", row.judged);
    if (row.judged) {
      r.Set("verdict", std::string(VerdictKindName(row.verdict.kind)));
      if (!row.verdict.accuracy_subkind.empty()) {
        r.Set("accuracy_subkind", row.verdict.accuracy_subkind);
      }
      if (IsFailure(row.verdict.kind)) r.Set("signature", row.verdict.signature.ToString());
      r.Set("message", row.verdict.message);
    } else {
      r.Set("error", row.error);
    }
    rows.push_back(std::move(r));
  }
  j.Set("rows", std::move(rows));
  return j;
}

}  // namespace rk::repro
