#include "tools/subcommand.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

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
    default:
      return kExitReproduces;
  }
}

}  // namespace rk::tools
