#include "repro/oracle/verdict_json.h"

#include <string>

#include "base/status_macros.h"

namespace rk::repro {
namespace {

Json MetricsToJson(const OutputMetrics& m) {
  Json j = Json::MakeObject();
  j.Set("judgement", std::string(JudgementName(m.judgement)));
  j.Set("reason", m.reason);
  j.Set("elements", static_cast<long long>(m.elements));
  j.Set("mismatches", static_cast<long long>(m.mismatches));
  j.Set("first_mismatch", static_cast<long long>(m.first_mismatch));
  j.Set("max_abs_error", m.max_abs_error);
  j.Set("max_rel_error", m.max_rel_error);
  j.Set("rmse_result_vs_fp64", m.rmse_result);
  j.Set("rmse_reference_vs_fp64", m.rmse_reference);
  j.Set("rmse_ratio", m.rmse_ratio);
  j.Set("cosine", m.cosine);
  return j;
}

absl::StatusOr<OutputMetrics> MetricsFromJson(const JsonRef& r) {
  OutputMetrics m;
  RK_ASSIGN_OR_RETURN(JsonRef judgement_ref, r.Field("judgement"));
  absl::StatusOr<std::string> judgement = judgement_ref.String();
  if (!judgement.ok()) return judgement.status();
  if (*judgement == "pass") {
    m.judgement = Judgement::kPass;
  } else if (*judgement == "fail") {
    m.judgement = Judgement::kFail;
  } else if (*judgement == "cannot_judge") {
    m.judgement = Judgement::kCannotJudge;
  } else {
    return judgement_ref.Error("expected pass, fail or cannot_judge");
  }
  RK_ASSIGN_OR_RETURN(JsonRef reason, r.Field("reason"));
  RK_ASSIGN_OR_RETURN(m.reason, reason.String());
  struct IntField {
    const char* key;
    int64_t* value;
  };
  for (IntField f : {IntField{"elements", &m.elements}, IntField{"mismatches", &m.mismatches},
                     IntField{"first_mismatch", &m.first_mismatch}}) {
    RK_ASSIGN_OR_RETURN(JsonRef field, r.Field(f.key));
    RK_ASSIGN_OR_RETURN(*f.value, field.Int());
  }
  struct DoubleField {
    const char* key;
    double* value;
  };
  for (DoubleField f : {DoubleField{"max_abs_error", &m.max_abs_error},
                        DoubleField{"max_rel_error", &m.max_rel_error},
                        DoubleField{"rmse_result_vs_fp64", &m.rmse_result},
                        DoubleField{"rmse_reference_vs_fp64", &m.rmse_reference},
                        DoubleField{"rmse_ratio", &m.rmse_ratio},
                        DoubleField{"cosine", &m.cosine}}) {
    RK_ASSIGN_OR_RETURN(JsonRef field, r.Field(f.key));
    RK_ASSIGN_OR_RETURN(*f.value, field.Double());
  }
  return m;
}

Json StringsToJson(const std::vector<std::string>& v) {
  Json a = Json::MakeArray();
  for (const std::string& s : v) a.push_back(s);
  return a;
}

absl::StatusOr<std::vector<std::string>> StringsFromJson(const JsonRef& r, const char* key) {
  std::vector<std::string> out;
  RK_ASSIGN_OR_RETURN(std::optional<JsonRef> field, r.OptionalField(key));
  if (!field) return out;
  RK_ASSIGN_OR_RETURN(std::vector<JsonRef> elements, field->Elements());
  for (const JsonRef& e : elements) {
    RK_ASSIGN_OR_RETURN(std::string s, e.String());
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Json VerdictToJson(const Verdict& v) {
  Json j = Json::MakeObject();
  j.Set("kind", std::string(VerdictKindName(v.kind)));
  j.Set("signature", v.signature.ToString());
  j.Set("message", v.message);
  if (!v.accuracy_subkind.empty()) j.Set("accuracy_subkind", v.accuracy_subkind);
  j.Set("policy", v.policy);
  Json outputs = Json::MakeArray();
  for (const OutputVerdict& o : v.outputs) {
    Json oj = Json::MakeObject();
    oj.Set("index", o.index);
    oj.Set("node", o.node);
    oj.Set("op", o.op);
    oj.Set("dtype", o.dtype);
    if (!o.gradient_of.empty()) oj.Set("gradient_of", o.gradient_of);
    oj.Set("metrics", MetricsToJson(o.metrics));
    outputs.push_back(std::move(oj));
  }
  j.Set("outputs", std::move(outputs));
  if (!v.warnings.empty()) j.Set("warnings", StringsToJson(v.warnings));
  if (!v.backtrace.empty()) j.Set("backtrace", StringsToJson(v.backtrace));
  if (!v.stderr_tail.empty()) j.Set("stderr_tail", v.stderr_tail);
  Json timings = Json::MakeObject();
  timings.Set("compile_seconds", v.compile_seconds);
  timings.Set("run_seconds", v.run_seconds);
  timings.Set("reference_seconds", v.reference_seconds);
  j.Set("timings", std::move(timings));
  return j;
}

absl::StatusOr<Verdict> VerdictFromJson(const JsonRef& r) {
  Verdict v;
  RK_ASSIGN_OR_RETURN(JsonRef kind_ref, r.Field("kind"));
  RK_ASSIGN_OR_RETURN(std::string kind, kind_ref.String());
  absl::StatusOr<VerdictKind> parsed_kind = ParseVerdictKind(kind);
  if (!parsed_kind.ok()) return kind_ref.Error(std::string(parsed_kind.status().message()));
  v.kind = *parsed_kind;
  RK_ASSIGN_OR_RETURN(JsonRef sig_ref, r.Field("signature"));
  RK_ASSIGN_OR_RETURN(std::string sig, sig_ref.String());
  absl::StatusOr<Signature> parsed_sig = Signature::Parse(sig);
  if (!parsed_sig.ok()) return sig_ref.Error(std::string(parsed_sig.status().message()));
  if (parsed_sig->kind != v.kind) {
    return sig_ref.Error(absl::StrCat("its kind '", std::string(VerdictKindName(parsed_sig->kind)),
                                      "' contradicts kind '", kind, "'"));
  }
  v.signature = *parsed_sig;
  RK_ASSIGN_OR_RETURN(JsonRef message, r.Field("message"));
  RK_ASSIGN_OR_RETURN(v.message, message.String());
  RK_ASSIGN_OR_RETURN(std::optional<JsonRef> subkind, r.OptionalField("accuracy_subkind"));
  if (subkind) {
    RK_ASSIGN_OR_RETURN(v.accuracy_subkind, subkind->String());
  }
  RK_ASSIGN_OR_RETURN(std::optional<JsonRef> policy, r.OptionalField("policy"));
  if (policy) {
    RK_ASSIGN_OR_RETURN(v.policy, policy->String());
  }
  RK_ASSIGN_OR_RETURN(std::optional<JsonRef> outputs, r.OptionalField("outputs"));
  if (outputs) {
    RK_ASSIGN_OR_RETURN(std::vector<JsonRef> elements, outputs->Elements());
    for (const JsonRef& e : elements) {
      OutputVerdict o;
      RK_ASSIGN_OR_RETURN(JsonRef index, e.Field("index"));
      RK_ASSIGN_OR_RETURN(int64_t i, index.Int());
      o.index = static_cast<int>(i);
      for (auto [key, out] : {std::pair<const char*, std::string*>{"node", &o.node},
                              {"op", &o.op},
                              {"dtype", &o.dtype}}) {
        RK_ASSIGN_OR_RETURN(JsonRef field, e.Field(key));
        RK_ASSIGN_OR_RETURN(*out, field.String());
      }
      RK_ASSIGN_OR_RETURN(std::optional<JsonRef> gradient_of, e.OptionalField("gradient_of"));
      if (gradient_of) {
        RK_ASSIGN_OR_RETURN(o.gradient_of, gradient_of->String());
      }
      RK_ASSIGN_OR_RETURN(JsonRef metrics, e.Field("metrics"));
      RK_ASSIGN_OR_RETURN(o.metrics, MetricsFromJson(metrics));
      v.outputs.push_back(std::move(o));
    }
  }
  RK_ASSIGN_OR_RETURN(v.warnings, StringsFromJson(r, "warnings"));
  RK_ASSIGN_OR_RETURN(v.backtrace, StringsFromJson(r, "backtrace"));
  RK_ASSIGN_OR_RETURN(std::optional<JsonRef> stderr_tail, r.OptionalField("stderr_tail"));
  if (stderr_tail) {
    RK_ASSIGN_OR_RETURN(v.stderr_tail, stderr_tail->String());
  }
  RK_ASSIGN_OR_RETURN(std::optional<JsonRef> timings, r.OptionalField("timings"));
  if (timings) {
    for (auto [key, out] : {std::pair<const char*, double*>{"compile_seconds", &v.compile_seconds},
                            {"run_seconds", &v.run_seconds},
                            {"reference_seconds", &v.reference_seconds}}) {
      RK_ASSIGN_OR_RETURN(JsonRef field, timings->Field(key));
      RK_ASSIGN_OR_RETURN(*out, field.Double());
    }
  }
  return v;
}

}  // namespace rk::repro
