// Node and graph names of the text format: what makes a name well formed.
//
// A node name is one or more of [A-Za-z0-9_.] and not made only of digits:
// digit-only names are how the text format spells unnamed nodes (their id),
// so reserving them keeps printing and parsing exact. Graph names with other
// characters are printed quoted.
//
// Tested by compiler/ir/names_test.cc.
#ifndef REPROKIT_COMPILER_IR_NAMES_H_
#define REPROKIT_COMPILER_IR_NAMES_H_

#include <string_view>

#include "absl/status/status.h"

namespace rk::compiler {

// True for a character of [A-Za-z0-9_.].
bool IsNameChar(char c);
// Non-empty and made of name characters (graph names need no more).
bool IsPlainName(std::string_view name);
// A valid node name: plain and not only digits.
bool IsValidNodeName(std::string_view name);
// InvalidArgument explaining why `name` is not a valid node name.
absl::Status CheckNodeName(std::string_view name);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_NAMES_H_
