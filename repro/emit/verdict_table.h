// The verdict table: a compact, human-readable rendering of an oracle Verdict
// (kind, signature, message, one row per output with its error metrics,
// warnings and the top of a crash backtrace), shared by the repro runner and
// `reprokit demo`, so a repro prints the same table wherever it runs.
//
// Needs nothing but the Verdict; guarantees a deterministic string ending in a
// newline. Tested by repro/emit/verdict_table_test.cc.
#ifndef REPROKIT_REPRO_EMIT_VERDICT_TABLE_H_
#define REPROKIT_REPRO_EMIT_VERDICT_TABLE_H_

#include <string>

#include "repro/oracle/verdict.h"

namespace rk::repro {

// `indent` prefixes every line (e.g. "  " to nest the table under a header).
std::string FormatVerdictTable(const Verdict& verdict, const std::string& indent = "");

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_EMIT_VERDICT_TABLE_H_
