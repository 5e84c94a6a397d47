#include "tools/flags.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rk::tools {

FlagSet::FlagSet(std::string usage, std::string description)
    : usage_(std::move(usage)), description_(std::move(description)) {}

void FlagSet::String(const std::string& name, std::string* value, const std::string& help,
                     char alias) {
  flags_.push_back({name, alias, Kind::kString, value, help, *value});
}

void FlagSet::Int(const std::string& name, int64_t* value, const std::string& help,
                  char alias) {
  flags_.push_back({name, alias, Kind::kInt, value, help, absl::StrCat(*value)});
}

void FlagSet::Double(const std::string& name, double* value, const std::string& help) {
  flags_.push_back({name, 0, Kind::kDouble, value, help, absl::StrCat(*value)});
}

void FlagSet::Bool(const std::string& name, bool* value, const std::string& help) {
  flags_.push_back({name, 0, Kind::kBool, value, help, ""});
}

void FlagSet::Repeated(const std::string& name, std::vector<std::string>* values,
                       const std::string& help) {
  flags_.push_back({name, 0, Kind::kRepeated, values, help, ""});
}

const FlagSet::Flag* FlagSet::Find(const std::string& name) const {
  for (const Flag& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const FlagSet::Flag* FlagSet::FindAlias(char alias) const {
  for (const Flag& f : flags_) {
    if (f.alias != 0 && f.alias == alias) return &f;
  }
  return nullptr;
}

bool FlagSet::WasSet(const std::string& name) const {
  return std::find(set_flags_.begin(), set_flags_.end(), name) != set_flags_.end();
}

absl::Status FlagSet::Assign(const Flag& flag, const std::string& value) const {
  switch (flag.kind) {
    case Kind::kString:
      *static_cast<std::string*>(flag.target) = value;
      return absl::OkStatus();
    case Kind::kInt: {
      int64_t v;
      if (!absl::SimpleAtoi(value, &v)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("--%s: expected an integer, got '%s'", flag.name, value));
      }
      *static_cast<int64_t*>(flag.target) = v;
      return absl::OkStatus();
    }
    case Kind::kDouble: {
      double v;
      if (!absl::SimpleAtod(value, &v)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("--%s: expected a number, got '%s'", flag.name, value));
      }
      *static_cast<double*>(flag.target) = v;
      return absl::OkStatus();
    }
    case Kind::kBool: {
      bool v;
      if (!absl::SimpleAtob(value, &v)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("--%s: expected true or false, got '%s'", flag.name, value));
      }
      *static_cast<bool*>(flag.target) = v;
      return absl::OkStatus();
    }
    case Kind::kRepeated:
      static_cast<std::vector<std::string>*>(flag.target)->push_back(value);
      return absl::OkStatus();
  }
  return absl::InternalError("unknown flag kind");
}

absl::StatusOr<std::vector<std::string>> FlagSet::Parse(absl::Span<const std::string> args) {
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg == "--help" || arg == "-h") {
      help_requested_ = true;
      continue;
    }
    const Flag* flag = nullptr;
    std::string value;
    bool has_value = false;
    if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-') {
      std::string body = arg.substr(2);
      size_t eq = body.find('=');
      std::string name = body.substr(0, eq);
      if (eq != std::string::npos) {
        value = body.substr(eq + 1);
        has_value = true;
      }
      flag = Find(name);
      if (flag == nullptr && !has_value && name.rfind("no-", 0) == 0) {
        const Flag* negated = Find(name.substr(3));
        if (negated != nullptr && negated->kind == Kind::kBool) {
          *static_cast<bool*>(negated->target) = false;
          set_flags_.push_back(negated->name);
          continue;
        }
      }
      if (flag == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrFormat("unknown flag '--%s' (see --help)", name));
      }
    } else if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-' &&
               !(arg[1] >= '0' && arg[1] <= '9')) {
      flag = FindAlias(arg[1]);
      if (flag == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrFormat("unknown flag '-%c' (see --help)", arg[1]));
      }
      if (arg.size() > 2) {
        value = arg.substr(arg[2] == '=' ? 3 : 2);
        has_value = true;
      }
    } else {
      positional.push_back(arg);
      continue;
    }
    set_flags_.push_back(flag->name);
    if (flag->kind == Kind::kBool && !has_value) {
      *static_cast<bool*>(flag->target) = true;
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("flag '--%s' needs a value", flag->name));
      }
      value = args[++i];
    }
    absl::Status s = Assign(*flag, value);
    if (!s.ok()) return s;
  }
  return positional;
}

std::string FlagSet::Help() const {
  std::string out = absl::StrCat("usage: reprokit ", usage_, "\n\n", description_, "\n");
  if (!flags_.empty()) absl::StrAppend(&out, "\nflags:\n");
  for (const Flag& f : flags_) {
    std::string spelled = f.alias ? absl::StrFormat("-%c, --%s", f.alias, f.name)
                                  : absl::StrCat("    --", f.name);
    switch (f.kind) {
      case Kind::kString:
        absl::StrAppend(&spelled, "=S");
        break;
      case Kind::kInt:
        absl::StrAppend(&spelled, "=N");
        break;
      case Kind::kDouble:
        absl::StrAppend(&spelled, "=X");
        break;
      case Kind::kRepeated:
        absl::StrAppend(&spelled, "=S ...");
        break;
      case Kind::kBool:
        break;
    }
    std::string help = f.help;
    if (!f.default_text.empty() && f.kind != Kind::kBool) {
      absl::StrAppend(&help, " (default: ", f.default_text, ")");
    }
    absl::StrAppend(&out, absl::StrFormat("  %-26s %s\n", spelled, help));
  }
  absl::StrAppend(&out, absl::StrFormat("  %-26s %s\n", "-h, --help", "show this help"));
  return out;
}

}  // namespace rk::tools
