// `reprokit fuzz merge RECORDS... -o DIR [--store URL]`: one report for the
// shards of a campaign run on several machines (testing/fuzz/campaign_record.h).
// Reached through `reprokit fuzz merge`; tested by tools/fuzz_merge_test.sh.
#ifndef REPROKIT_TOOLS_FUZZ_MERGE_COMMAND_H_
#define REPROKIT_TOOLS_FUZZ_MERGE_COMMAND_H_

#include <string>

#include "absl/types/span.h"

namespace rk::tools {

int RunFuzzMerge(absl::Span<const std::string> args);

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_FUZZ_MERGE_COMMAND_H_
