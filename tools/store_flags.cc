#include "tools/store_flags.h"

#include <cstdio>
#include <string>

#include "tools/subcommand.h"

namespace rk::tools {

int ReportStoreError(const char* command, const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
      std::fprintf(stderr, "reprokit: %s: %s\n", command, std::string(status.message()).c_str());
      return kExitCannotTest;
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnimplemented:
      std::fprintf(stderr, "reprokit: %s: %s\n", command, std::string(status.message()).c_str());
      return kExitUsage;
    default:
      return ReportError(command, status);
  }
}

}  // namespace rk::tools
