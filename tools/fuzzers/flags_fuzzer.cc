// Fuzz harness: command-line parsing (tools/flags) and the --opt key=value
// options (compiler/options). The input is argv, one argument per line. Any
// argv must parse or give an error, never crash; options that apply must
// survive their canonical text form: Parse(ToString()) == options, and
// ToString is a fixed point. Seeds: command lines of docs/ and the CLI tests;
// dictionary: flags.dict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "compiler/options/compile_options.h"
#include "tools/flags.h"
#include "tools/fuzzers/fuzz_assert.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return -1;
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args = absl::StrSplit(text, '\n');

  std::string out;
  int64_t jobs = 1;
  double timeout = 60;
  bool json = false;
  std::vector<std::string> opts;
  rk::tools::FlagSet flags("fuzz GRAPH [flags]", "flag parsing under fuzzing");
  flags.String("output", &out, "output", 'o');
  flags.Int("jobs", &jobs, "jobs", 'j');
  flags.Double("timeout", &timeout, "seconds");
  flags.Bool("json", &json, "json");
  flags.Repeated("opt", &opts, "key=value");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return 0;
  (void)flags.Help();

  rk::compiler::CompileOptions options;
  if (!options.Apply(opts).ok()) return 0;
  std::string canonical = options.ToString();
  absl::StatusOr<rk::compiler::CompileOptions> again = rk::compiler::CompileOptions::Parse(canonical);
  RK_FUZZ_ASSERT(again.ok(), "canonical options '%s' do not parse: %s", canonical.c_str(),
                 again.status().ToString().c_str());
  RK_FUZZ_ASSERT(again->ToString() == canonical, "options changed through text: '%s' -> '%s'",
                 canonical.c_str(), again->ToString().c_str());
  return 0;
}
