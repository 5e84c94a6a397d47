// The `reprokit` subcommand registry.
//
// Each subcommand lives in its own file `tools/<name>_command.cc` and registers
// itself with REPROKIT_SUBCOMMAND; `reprokit_main.cc` dispatches by name and
// prints the list for `reprokit --help`. Subcommands report errors on stderr as
// `reprokit: <subcommand>: <what>: <why>` and return one of the ExitCode values.
#ifndef REPROKIT_TOOLS_SUBCOMMAND_H_
#define REPROKIT_TOOLS_SUBCOMMAND_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "tools/exit_codes.h"

namespace rk::tools {

struct Subcommand {
  const char* name;
  const char* summary;  // one line for `reprokit --help`
  int (*run)(absl::Span<const std::string> args);
  bool hidden = false;  // internal (e.g. the worker mode); not listed
};

// All registered subcommands, sorted by name.
std::vector<const Subcommand*> AllSubcommands();
const Subcommand* FindSubcommand(const std::string& name);

// Registers at static-initialization time; use through REPROKIT_SUBCOMMAND.
struct SubcommandRegistration {
  explicit SubcommandRegistration(const Subcommand* command);
};

// Prints `reprokit: <command>: <status message>` to stderr and returns the exit
// code that fits the status (ExitCodeForStatus): kExitUsage for bad input,
// kExitCannotTest otherwise; never kExitReproduces.
int ReportError(const char* command, const absl::Status& status);

class FlagSet;

// The front of a subcommand that takes one argument: parses `args` with
// `flags`, prints the help on --help, and requires exactly one positional
// argument (`what` names it in the error: "GRAPH", "BUNDLE"). Returns it, or
// std::nullopt with *exit_code set: kExitOk after --help, ReportError's code
// after a bad command line.
std::optional<std::string> ParseSingleArgument(FlagSet& flags, absl::Span<const std::string> args,
                                               const char* command, const char* what,
                                               int* exit_code);

}  // namespace rk::tools

#define REPROKIT_SUBCOMMAND_CONCAT_INNER(a, b) a##b
#define REPROKIT_SUBCOMMAND_CONCAT(a, b) REPROKIT_SUBCOMMAND_CONCAT_INNER(a, b)
#define REPROKIT_SUBCOMMAND(...)                                                         \
  static const ::rk::tools::Subcommand REPROKIT_SUBCOMMAND_CONCAT(kSubcommand_,          \
                                                                  __LINE__){__VA_ARGS__}; \
  static const ::rk::tools::SubcommandRegistration REPROKIT_SUBCOMMAND_CONCAT(           \
      kSubcommandRegistration_, __LINE__)(&REPROKIT_SUBCOMMAND_CONCAT(kSubcommand_, __LINE__))

#endif  // REPROKIT_TOOLS_SUBCOMMAND_H_
