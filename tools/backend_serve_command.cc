// `reprokit backend-serve`: the built-in compiler as an external backend, over
// stdin/stdout in the backend protocol (docs/BACKENDS.md). The harness starts
// it for `--backend reprokit`; it is also the reference a backend author can
// test a harness against.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "repro/backend/builtin_server.h"
#include "repro/backend/locate.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "backend-serve";

int RunBackendServe(absl::Span<const std::string> args) {
  FlagSet flags("backend-serve",
                "Serves the built-in compiler through the backend protocol (docs/BACKENDS.md)\n"
                "on stdin and stdout, until shutdown or end of input. Started by the harness\n"
                "for --backend reprokit; nothing to run by hand.");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return ReportError(kName, positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (!positional->empty()) {
    return ReportError(kName, absl::InvalidArgumentError("takes no arguments"));
  }
  // Frames go to a private copy of stdout; anything else printed to stdout
  // (by the compiler or a library) lands on stderr instead of in a frame.
  std::fflush(stdout);
  const int frames_fd = ::dup(1);
  if (frames_fd < 0 || ::dup2(2, 1) < 0) {
    return ReportError(kName, absl::InternalError("cannot set up stdout"));
  }
  absl::Status served = repro::ServeBuiltinBackend(0, frames_fd);
  if (!served.ok()) return ReportError(kName, served);
  return kExitOk;
}

// `--backend reprokit` runs this binary's backend-serve.
const bool kSelfRegistered = [] {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", ec);
  if (!ec) repro::SetSelfBackendCommand({self.string(), kName});
  return true;
}();

}  // namespace

REPROKIT_SUBCOMMAND("backend-serve", "serve the built-in compiler through the backend protocol",
                    &RunBackendServe);

}  // namespace rk::tools
