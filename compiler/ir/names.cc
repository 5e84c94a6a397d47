#include "compiler/ir/names.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace rk::compiler {

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.'; }

bool IsPlainName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

bool IsValidNodeName(std::string_view name) {
  if (!IsPlainName(name)) return false;
  for (char c : name) {
    if (!absl::ascii_isdigit(c)) return true;
  }
  return false;
}

absl::Status CheckNodeName(std::string_view name) {
  if (IsValidNodeName(name)) return absl::OkStatus();
  if (IsPlainName(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "name '", std::string(name), "' is made only of digits, which is reserved for unnamed nodes"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("name '", absl::CHexEscape(std::string(name)), "' is not made of [A-Za-z0-9_.]"));
}

}  // namespace rk::compiler
