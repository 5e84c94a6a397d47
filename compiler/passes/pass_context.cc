// PassContext: numbering, capping and disabling of optional pass applications.
#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {
namespace {

struct PassName {
  const char* name;
  bool optional;
};

// Every pass that may be named in disable_passes: the graph pipeline and the
// later optional stages, all from passes.def.
const std::vector<PassName>& KnownPasses() {
  static const std::vector<PassName>* const passes = new std::vector<PassName>{
#define GRAPH_PASS(stem, function, optional) {#stem, optional},
#define LATE_PASS(stem) {#stem, true},
#include "compiler/options/passes.def"
#undef GRAPH_PASS
#undef LATE_PASS
  };
  return *passes;
}

absl::Status CheckDisabledPasses(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    auto it = std::find_if(KnownPasses().begin(), KnownPasses().end(),
                           [&](const PassName& p) { return name == p.name; });
    if (it == KnownPasses().end()) {
      std::vector<std::string> valid;
      for (const PassName& p : KnownPasses()) {
        if (p.optional) valid.push_back(p.name);
      }
      return absl::InvalidArgumentError(absl::StrCat("disable_passes: unknown pass '", name,
                                                     "'; valid passes: ",
                                                     absl::StrJoin(valid, ", ")));
    }
    if (!it->optional) {
      return absl::InvalidArgumentError(absl::StrCat(
          "disable_passes: pass '", name, "' is required lowering and cannot be disabled"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

PassContext::PassContext(CompileOptions options, FaultSet faults)
    : options_(std::move(options)), faults_(std::move(faults)) {}

absl::StatusOr<PassContext> PassContext::Create(const CompileOptions& options) {
  if (absl::Status s = CheckDisabledPasses(options.disable_passes); !s.ok()) return s;
  absl::StatusOr<FaultSet> faults = FaultSet::Parse(options.faults);
  if (!faults.ok()) return faults.status();
  return PassContext(options, *std::move(faults));
}

bool PassContext::IsDisabled(std::string_view pass) const {
  if (options_.opt_level == 0) return true;
  return std::find(options_.disable_passes.begin(), options_.disable_passes.end(), pass) !=
         options_.disable_passes.end();
}

absl::StatusOr<bool> PassContext::ShouldApply(std::string_view pass, std::string_view detail) {
  if (IsDisabled(pass)) return false;
  const int64_t number = ++requested_;
  const int64_t cap = options_.max_pass_applications;
  if (cap >= 0 && number > cap) return false;
  log_.push_back(PassApplication{number, std::string(pass), std::string(detail)});
  if (absl::Status s = faults_.FireCompileTimeFaults(pass); !s.ok()) return s;
  return true;
}

}  // namespace rk::compiler
