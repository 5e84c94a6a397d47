#include "tools/subcommand.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tools/flags.h"

namespace rk::tools {
namespace {

std::vector<const Subcommand*>& Registry() {
  static auto* registry = new std::vector<const Subcommand*>();
  return *registry;
}

}  // namespace

SubcommandRegistration::SubcommandRegistration(const Subcommand* command) {
  Registry().push_back(command);
}

std::vector<const Subcommand*> AllSubcommands() {
  std::vector<const Subcommand*> all = Registry();
  std::sort(all.begin(), all.end(), [](const Subcommand* a, const Subcommand* b) {
    return std::strcmp(a->name, b->name) < 0;
  });
  return all;
}

const Subcommand* FindSubcommand(const std::string& name) {
  for (const Subcommand* c : Registry()) {
    if (name == c->name) return c;
  }
  return nullptr;
}

int ReportError(const char* command, const absl::Status& status) {
  std::fprintf(stderr, "reprokit: %s: %s\n", command, std::string(status.message()).c_str());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kDataLoss:
      return kExitUsage;
    case absl::StatusCode::kUnavailable:
      return kExitCannotTest;
    default:
      return kExitReproduces;
  }
}

std::optional<std::string> ParseSingleArgument(FlagSet& flags, absl::Span<const std::string> args,
                                               const char* command, const char* what,
                                               int* exit_code) {
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) {
    *exit_code = ReportError(command, positional.status());
    return std::nullopt;
  }
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    *exit_code = kExitOk;
    return std::nullopt;
  }
  if (positional->size() != 1) {
    *exit_code = ReportError(
        command, absl::InvalidArgumentError(absl::StrCat("expected exactly one ", what, " argument")));
    return std::nullopt;
  }
  return (*positional)[0];
}

}  // namespace rk::tools
