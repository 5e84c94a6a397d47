// The `reprokit` command line: dispatches to the registered subcommands.
#include <signal.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tools/subcommand.h"

namespace {

void PrintHelp(FILE* out) {
  std::fprintf(out,
               "usage: reprokit <subcommand> [flags] [args]\n\n"
               "reprokit turns failing tensor-compiler runs into small, runnable reproducers.\n\n"
               "subcommands:\n");
  // AllSubcommands() is sorted by name.
  for (const rk::tools::Subcommand* c : rk::tools::AllSubcommands()) {
    if (!c->hidden) std::fprintf(out, "  %-10s %s\n", c->name, c->summary);
  }
  std::fprintf(out,
               "\n'reprokit <subcommand> --help' describes each one.\n"
               "Exit codes: 0 ok / does not reproduce, 1 reproduces, 2 usage or bad input, "
               "125 cannot judge.\n");
}

}  // namespace

int main(int argc, char** argv) {
  // Past RLIMIT_FSIZE a write fails with EFBIG, reported like ENOSPC, instead
  // of SIGXFSZ killing the process with its temporary files in place.
  ::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    PrintHelp(stderr);
    return rk::tools::kExitUsage;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintHelp(stdout);
    return rk::tools::kExitOk;
  }
  if (name == "--version") name = "version";
  const rk::tools::Subcommand* command = rk::tools::FindSubcommand(name);
  if (command == nullptr) {
    std::fprintf(stderr, "reprokit: unknown subcommand '%s' (see 'reprokit --help')\n",
                 name.c_str());
    return rk::tools::kExitUsage;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  return command->run(args);
}
