// The repro.json schema (docs/BUNDLE.md): conversion between Bundle (minus
// its graph, which lives in graph.rk) and JSON. Verdicts use
// repro/oracle/verdict_json.h.
//
// Reading is strict about what the harness relies on (format, version,
// options, inputs, verdict kind and signature) and names the key path in
// every error; environment, provenance and minimization are kept as opaque
// JSON.
//
// Tested through files by repro/bundle/bundle_test.cc (round trips and
// every rejected edit).
#ifndef REPROKIT_REPRO_BUNDLE_BUNDLE_JSON_H_
#define REPROKIT_REPRO_BUNDLE_BUNDLE_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "base/json.h"
#include "repro/bundle/bundle.h"

namespace rk::repro {

Json InputToJson(const BundleInput& input);
absl::StatusOr<BundleInput> InputFromJson(const JsonRef& json);

// Everything but the graph; `hash` is BundleHash(bundle), recorded so that
// later edits to the bundle can be noticed.
Json BundleToJson(const Bundle& bundle, const std::string& hash);
// Fills every field of the result but `graph`. Also returns the recorded
// hash through `recorded_hash` when not null ("" when absent).
absl::StatusOr<Bundle> BundleFromJson(const Json& json, const std::string& document,
                                      std::string* recorded_hash = nullptr);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BUNDLE_BUNDLE_JSON_H_
