// Command-line flag parsing shared by every `reprokit` subcommand.
//
// Flags are long (`--name=value` or `--name value`), optionally with a
// one-letter alias (`-j 2`, `-o DIR`). Boolean flags take no value
// (`--json`), or `--name=true|false`. Repeated flags collect every value
// (`--opt a=1 --opt b=2`). `--help`/`-h` is always understood. `--` ends the
// flags. Unknown flags and malformed values are errors, never ignored.
//
// Tested by tools/flags_test.cc.
#ifndef REPROKIT_TOOLS_FLAGS_H_
#define REPROKIT_TOOLS_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace rk::tools {

class FlagSet {
 public:
  // `usage` is the synopsis after "reprokit", e.g. "show GRAPH [flags]";
  // `description` is a paragraph printed under it by Help().
  FlagSet(std::string usage, std::string description);

  void String(const std::string& name, std::string* value, const std::string& help,
              char alias = 0);
  void Int(const std::string& name, int64_t* value, const std::string& help, char alias = 0);
  void Double(const std::string& name, double* value, const std::string& help);
  void Bool(const std::string& name, bool* value, const std::string& help);
  void Repeated(const std::string& name, std::vector<std::string>* values,
                const std::string& help);

  // Parses `args` (without the program and subcommand names). Returns the
  // positional arguments. Sets help_requested() on --help.
  absl::StatusOr<std::vector<std::string>> Parse(absl::Span<const std::string> args);

  bool help_requested() const { return help_requested_; }
  // Whether the flag appeared on the command line (to let it override a
  // value from elsewhere, e.g. a bundle).
  bool WasSet(const std::string& name) const;
  std::string Help() const;

 private:
  enum class Kind { kString, kInt, kDouble, kBool, kRepeated };
  struct Flag {
    std::string name;
    char alias;
    Kind kind;
    void* target;
    std::string help;
    std::string default_text;
  };
  const Flag* Find(const std::string& name) const;
  const Flag* FindAlias(char alias) const;
  absl::Status Assign(const Flag& flag, const std::string& value) const;

  std::string usage_;
  std::string description_;
  std::vector<Flag> flags_;
  bool help_requested_ = false;
  std::vector<std::string> set_flags_;
};

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_FLAGS_H_
