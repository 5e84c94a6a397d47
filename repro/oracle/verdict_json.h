// Verdicts as JSON: for `reprokit check --json` and for bundles' repro.json
// ("expected" verdict). Non-finite metrics print as the strings "NaN",
// "Infinity" (json.h's convention) and read back.
//
// Tested by repro/oracle/verdict_json_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_VERDICT_JSON_H_
#define REPROKIT_REPRO_ORACLE_VERDICT_JSON_H_

#include "absl/status/statusor.h"
#include "base/json.h"
#include "repro/oracle/verdict.h"

namespace rk::repro {

Json VerdictToJson(const Verdict& verdict);
// `ref` says where the object sits in its document, for error messages.
absl::StatusOr<Verdict> VerdictFromJson(const JsonRef& ref);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_VERDICT_JSON_H_
