#include "repro/bundle/bundle_json.h"

#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/ir/dtype.h"
#include "repro/oracle/verdict_json.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::RandomSpec;
using compiler::TensorType;

std::string_view Std(absl::string_view s) { return std::string_view(s.data(), s.size()); }

// Reads an optional member into `out`, leaving it unchanged when absent.
absl::Status OptionalDouble(const JsonRef& obj, std::string_view key, double& out) {
  RK_ASSIGN_OR_RETURN(auto field, obj.OptionalField(key));
  if (!field) return absl::OkStatus();
  RK_ASSIGN_OR_RETURN(auto v, field->Double());
  out = v;
  return absl::OkStatus();
}

absl::Status OptionalString(const JsonRef& obj, std::string_view key, std::string& out) {
  RK_ASSIGN_OR_RETURN(auto field, obj.OptionalField(key));
  if (!field) return absl::OkStatus();
  RK_ASSIGN_OR_RETURN(auto v, field->String());
  out = std::move(v);
  return absl::OkStatus();
}

std::string_view DistributionName(RandomSpec::Distribution d) {
  return d == RandomSpec::Distribution::kNormal ? "normal" : "uniform";
}

Json OptionsToJson(const compiler::CompileOptions& options) {
  Json j = Json::MakeObject();
  j["text"] = options.ToString();
  Json values = Json::MakeObject();
  for (const auto& [key, value] : options.Items()) values[key] = value;
  j["values"] = std::move(values);
  return j;
}

// The text form is authoritative; the key/value object must agree with it so
// that a hand edit of only one of them is caught instead of silently ignored.
absl::StatusOr<compiler::CompileOptions> OptionsFromJson(const JsonRef& j) {
  RK_ASSIGN_OR_RETURN(auto text_ref, j.Field("text"));
  RK_ASSIGN_OR_RETURN(auto text, text_ref.String());
  absl::StatusOr<compiler::CompileOptions> options = compiler::CompileOptions::Parse(text);
  if (!options.ok()) return text_ref.Error(Std(options.status().message()));
  RK_ASSIGN_OR_RETURN(auto values, j.OptionalField("values"));
  if (!values) return *options;
  RK_ASSIGN_OR_RETURN(auto members, values->Members());
  compiler::CompileOptions from_values;
  for (const auto& [key, ref] : members) {
    RK_ASSIGN_OR_RETURN(auto value, ref.String());
    if (absl::Status s = from_values.Set(key, value); !s.ok()) return ref.Error(Std(s.message()));
  }
  if (!(from_values == *options)) {
    return values->Error(absl::StrCat("disagrees with compile_options.text (\"", text,
                                      "\" vs \"", from_values.ToString(), "\")"));
  }
  return *options;
}

absl::StatusOr<TensorType> TypeFromJson(const JsonRef& j) {
  RK_ASSIGN_OR_RETURN(auto dtype_ref, j.Field("dtype"));
  RK_ASSIGN_OR_RETURN(auto dtype_name, dtype_ref.String());
  std::optional<DType> dtype = compiler::ParseDType(dtype_name);
  if (!dtype) return dtype_ref.Error(absl::StrCat("unknown dtype '", dtype_name, "'"));
  RK_ASSIGN_OR_RETURN(auto shape_ref, j.Field("shape"));
  RK_ASSIGN_OR_RETURN(auto dims_refs, shape_ref.Elements());
  std::vector<int64_t> dims;
  for (const JsonRef& d : dims_refs) {
    RK_ASSIGN_OR_RETURN(auto dim, d.Int());
    if (dim < 0) return d.Error("negative dimension");
    dims.push_back(dim);
  }
  return TensorType(*dtype, compiler::Shape(std::move(dims)));
}

}  // namespace

Json InputToJson(const BundleInput& input) {
  Json j = Json::MakeObject();
  j["name"] = input.name;
  j["dtype"] = compiler::DTypeName(input.type.dtype);
  Json shape = Json::MakeArray();
  for (int64_t d : input.type.shape.dims()) shape.push_back(d);
  j["shape"] = std::move(shape);
  if (input.source == BundleInput::Source::kBlob) {
    j["source"] = "blob";
    j["sha256"] = input.sha256.Hex();
    j["byte_size"] = input.byte_size;
  } else {
    j["source"] = "random";
    Json recipe = Json::MakeObject();
    recipe["seed"] = input.seed;
    recipe["distribution"] = DistributionName(input.random.distribution);
    recipe["low"] = input.random.low;
    recipe["high"] = input.random.high;
    j["random"] = std::move(recipe);
  }
  return j;
}

absl::StatusOr<BundleInput> InputFromJson(const JsonRef& j) {
  BundleInput in;
  RK_ASSIGN_OR_RETURN(auto name_ref, j.Field("name"));
  RK_ASSIGN_OR_RETURN(auto name, name_ref.String());
  in.name = std::move(name);
  RK_ASSIGN_OR_RETURN(auto type, TypeFromJson(j));
  in.type = std::move(type);
  RK_ASSIGN_OR_RETURN(auto source_ref, j.Field("source"));
  RK_ASSIGN_OR_RETURN(auto source, source_ref.String());
  if (source == "blob") {
    in.source = BundleInput::Source::kBlob;
    RK_ASSIGN_OR_RETURN(auto sha_ref, j.Field("sha256"));
    RK_ASSIGN_OR_RETURN(auto hex, sha_ref.String());
    absl::StatusOr<Digest> digest = Digest::FromHex(hex);
    if (!digest.ok()) return sha_ref.Error(Std(digest.status().message()));
    in.sha256 = *digest;
    RK_ASSIGN_OR_RETURN(auto size_ref, j.Field("byte_size"));
    RK_ASSIGN_OR_RETURN(auto size, size_ref.Uint());
    in.byte_size = size;
    if (size != static_cast<uint64_t>(in.type.byte_size())) {
      return size_ref.Error(absl::StrCat(size, " bytes does not fit ", in.type.ToString(),
                                         " (", in.type.byte_size(), " bytes)"));
    }
  } else if (source == "random") {
    in.source = BundleInput::Source::kRandom;
    RK_ASSIGN_OR_RETURN(auto recipe, j.Field("random"));
    RK_ASSIGN_OR_RETURN(auto seed_ref, recipe.Field("seed"));
    RK_ASSIGN_OR_RETURN(auto seed, seed_ref.Uint());
    in.seed = seed;
    RK_ASSIGN_OR_RETURN(auto dist_ref, recipe.Field("distribution"));
    RK_ASSIGN_OR_RETURN(auto dist, dist_ref.String());
    if (dist == "uniform") {
      in.random.distribution = RandomSpec::Distribution::kUniform;
    } else if (dist == "normal") {
      in.random.distribution = RandomSpec::Distribution::kNormal;
    } else {
      return dist_ref.Error(absl::StrCat("unknown distribution '", dist,
                                         "' (expected uniform or normal)"));
    }
    RK_ASSIGN_OR_RETURN(auto low, recipe.Field("low"));
    RK_ASSIGN_OR_RETURN(auto low_value, low.Double());
    RK_ASSIGN_OR_RETURN(auto high, recipe.Field("high"));
    RK_ASSIGN_OR_RETURN(auto high_value, high.Double());
    // Non-finite bounds would make every seeded value NaN or Inf, silently.
    if (!std::isfinite(low_value)) return low.Error("must be a finite number");
    if (!std::isfinite(high_value)) return high.Error("must be a finite number");
    if (low_value > high_value) return high.Error("must not be below low");
    in.random.low = low_value;
    in.random.high = high_value;
  } else {
    return source_ref.Error(
        absl::StrCat("unknown input source '", source, "' (expected blob or random)"));
  }
  return in;
}

Json BundleToJson(const Bundle& bundle, const std::string& hash) {
  Json j = Json::MakeObject();
  j["format"] = kBundleFormat;
  j["version"] = kBundleVersion;
  j["bundle_hash"] = hash;
  j["graph"] = kBundleGraphFile;
  j["compile_options"] = OptionsToJson(bundle.options);
  Json inputs = Json::MakeArray();
  for (const BundleInput& in : bundle.inputs) inputs.push_back(InputToJson(in));
  j["inputs"] = std::move(inputs);
  Json expected = VerdictToJson(bundle.expected);
  expected.Set("judged", bundle.judged);
  // Written only when deferred, so other bundles keep their bytes.
  if (bundle.precision_check_deferred) expected.Set("precision_check", "deferred");
  j["expected"] = std::move(expected);
  Json tolerance = Json::MakeObject();
  tolerance["policy"] = bundle.policy;
  tolerance["tol"] = bundle.tol;
  // Written only when set, so bundles captured with the default keep their bytes.
  if (bundle.timeout_seconds > 0) tolerance["timeout_seconds"] = bundle.timeout_seconds;
  j["tolerance"] = std::move(tolerance);
  j["environment"] = bundle.environment;
  j["provenance"] = bundle.provenance;
  j["minimization"] = bundle.minimization;
  return j;
}

absl::StatusOr<Bundle> BundleFromJson(const Json& json, const std::string& document,
                                      std::string* recorded_hash) {
  JsonRef root(json, document);
  RK_ASSIGN_OR_RETURN(auto format_ref, root.Field("format"));
  RK_ASSIGN_OR_RETURN(auto format, format_ref.String());
  if (format != kBundleFormat) {
    return format_ref.Error(absl::StrCat("not a reprokit bundle (format '", format,
                                         "', expected '", kBundleFormat, "')"));
  }
  RK_ASSIGN_OR_RETURN(auto version_ref, root.Field("version"));
  RK_ASSIGN_OR_RETURN(auto version, version_ref.Int());
  if (version != kBundleVersion) {
    return version_ref.Error(absl::StrCat("unsupported bundle version ", version,
                                          " (this reprokit reads version ", kBundleVersion,
                                          ")"));
  }
  Bundle b;
  if (recorded_hash != nullptr) {
    recorded_hash->clear();
    if (absl::Status s = OptionalString(root, "bundle_hash", *recorded_hash); !s.ok()) return s;
  }
  RK_ASSIGN_OR_RETURN(auto options_ref, root.Field("compile_options"));
  RK_ASSIGN_OR_RETURN(auto options, OptionsFromJson(options_ref));
  b.options = std::move(options);
  RK_ASSIGN_OR_RETURN(auto inputs_ref, root.Field("inputs"));
  RK_ASSIGN_OR_RETURN(auto inputs, inputs_ref.Elements());
  for (const JsonRef& in_ref : inputs) {
    RK_ASSIGN_OR_RETURN(auto in, InputFromJson(in_ref));
    b.inputs.push_back(std::move(in));
  }
  RK_ASSIGN_OR_RETURN(auto expected_ref, root.Field("expected"));
  RK_ASSIGN_OR_RETURN(auto expected, VerdictFromJson(expected_ref));
  b.expected = std::move(expected);
  RK_ASSIGN_OR_RETURN(auto judged_ref, expected_ref.OptionalField("judged"));
  if (judged_ref) {
    RK_ASSIGN_OR_RETURN(auto judged, judged_ref->Bool());
    b.judged = judged;
  }
  RK_ASSIGN_OR_RETURN(auto precision_ref, expected_ref.OptionalField("precision_check"));
  if (precision_ref) {
    RK_ASSIGN_OR_RETURN(auto precision, precision_ref->String());
    if (precision != "deferred" && precision != "done") {
      return precision_ref->Error(absl::StrCat("unknown precision_check '", precision,
                                               "' (expected deferred or done)"));
    }
    b.precision_check_deferred = precision == "deferred";
  }
  RK_ASSIGN_OR_RETURN(auto tolerance, root.OptionalField("tolerance"));
  if (tolerance) {
    if (absl::Status s = OptionalString(*tolerance, "policy", b.policy); !s.ok()) return s;
    if (absl::Status s = OptionalDouble(*tolerance, "tol", b.tol); !s.ok()) return s;
    if (absl::Status s = OptionalDouble(*tolerance, "timeout_seconds", b.timeout_seconds);
        !s.ok()) {
      return s;
    }
    if (!std::isfinite(b.timeout_seconds)) {
      return absl::InvalidArgumentError("tolerance.timeout_seconds: must be a finite number");
    }
  }
  for (auto [key, field] : {std::pair<std::string_view, Json*>{"environment", &b.environment},
                            {"provenance", &b.provenance},
                            {"minimization", &b.minimization}}) {
    RK_ASSIGN_OR_RETURN(auto ref, root.OptionalField(key));
    if (!ref) continue;
    if (!ref->value().is_object()) return ref->Error("expected object");
    *field = ref->value();
  }
  return b;
}

}  // namespace rk::repro
