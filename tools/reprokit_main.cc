// The `reprokit` command line: dispatches to the registered subcommands.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tools/subcommand.h"

namespace {

// Subcommands of the design that are not built yet; listed so --help tells
// the truth about what exists.
constexpr const char* kPlanned[][2] = {
    {"bisect", "find the first bad pass application, option or node (planned)"},
    {"capture", "compile a graph and capture a repro bundle (planned)"},
    {"check", "compile, run and judge against the fp64 reference (planned)"},
    {"compile", "compile a graph, run it on seeded inputs, print timings (planned)"},
    {"demo", "end-to-end demo: detect, capture, minify, emit, bazel test (planned)"},
    {"emit", "emit a Bazel test target for a bundle (planned)"},
    {"eval", "run the reference interpreter on seeded inputs (planned)"},
    {"fuzz", "random graphs, differential testing, auto-minimize (planned)"},
    {"minify", "shrink a failing bundle to a 1-minimal repro (planned)"},
    {"pack", "pack a bundle into one .tar.zst (planned)"},
    {"run", "replay a bundle (planned)"},
    {"show", "print a graph, its statistics or its Graphviz form (planned)"},
    {"store", "content store stats, verify, gc (planned)"},
    {"unpack", "unpack a .tar.zst bundle (planned)"},
};

void PrintHelp(FILE* out) {
  std::fprintf(out,
               "usage: reprokit <subcommand> [flags] [args]\n\n"
               "reprokit turns failing tensor-compiler runs into small, runnable reproducers.\n\n"
               "subcommands:\n");
  std::vector<std::pair<std::string, std::string>> rows;
  for (const rk::tools::Subcommand* c : rk::tools::AllSubcommands()) {
    if (!c->hidden) rows.emplace_back(c->name, c->summary);
  }
  for (const auto& p : kPlanned) {
    if (rk::tools::FindSubcommand(p[0]) == nullptr) rows.emplace_back(p[0], p[1]);
  }
  std::sort(rows.begin(), rows.end());
  for (const auto& [name, summary] : rows) {
    std::fprintf(out, "  %-10s %s\n", name.c_str(), summary.c_str());
  }
  std::fprintf(out,
               "\n'reprokit <subcommand> --help' describes each one.\n"
               "Exit codes: 0 ok / does not reproduce, 1 reproduces, 2 usage or bad input, "
               "125 cannot judge.\n");
}

}  // namespace

int main(int argc, char** argv) {
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
    for (const auto& p : kPlanned) {
      if (name == p[0]) {
        std::fprintf(stderr, "reprokit: %s: not implemented yet\n", name.c_str());
        return rk::tools::kExitUsage;
      }
    }
    std::fprintf(stderr, "reprokit: unknown subcommand '%s' (see 'reprokit --help')\n",
                 name.c_str());
    return rk::tools::kExitUsage;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  return command->run(args);
}
