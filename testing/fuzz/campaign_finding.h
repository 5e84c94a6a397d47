// A new finding's files: its minimized bundle (<dir>/min, with the backend
// that judged it recorded), its triage (repro/triage: the class across its
// target's knobs and the built-in compiler) and, when the campaign emits, its
// Bazel package (repro/emit). Failures to capture or emit are kept in the
// record (emit_error), never lost.
//
// Tested by testing/fuzz/campaign_test.cc (through RunCampaign).
#ifndef REPROKIT_TESTING_FUZZ_CAMPAIGN_FINDING_H_
#define REPROKIT_TESTING_FUZZ_CAMPAIGN_FINDING_H_

#include <string>

#include "base/json.h"
#include "compiler/options/compile_options.h"
#include "minifier/interestingness.h"
#include "repro/oracle/oracle.h"
#include "repro/oracle/verdict.h"
#include "testing/fuzz/campaign.h"

namespace rk::fuzz {

// environment.backend for a bundle judged with `options` (null for the
// built-in compiler, or when the backend does not answer).
Json BackendRecord(repro::Oracle& oracle, const compiler::CompileOptions& options);

// "<class>: <explanation>" of the finding `best`, judged by `oracle`; "not
// triaged: ..." when its backend does not answer.
std::string TriageFinding(repro::Oracle& oracle, const minifier::Candidate& best,
                          const compiler::CompileOptions& options);

// Captures `best` with `verdict` into <dir>/min (parent: `parent_hash`),
// triages it and emits it as options.package_prefix/<record.name>; sets
// record.triage, package, test_label and emit_error.
void WriteFinding(const CampaignOptions& options, repro::Oracle& oracle, const std::string& dir,
                  const minifier::Candidate& best, const repro::Verdict& verdict,
                  const compiler::CompileOptions& config_options, const std::string& parent_hash,
                  FindingRecord& record);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_CAMPAIGN_FINDING_H_
