#include "compiler/options/compile_options.h"

#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace rk::compiler {
namespace {

// One option: how to read it from text and how to print it. The table below is
// the single place that lists the keys, in their canonical order.
struct OptionField {
  const char* key;
  std::function<absl::Status(CompileOptions&, const std::string&)> set;
  std::function<std::string(const CompileOptions&)> get;
};

absl::Status BadValue(const std::string& key, const std::string& value, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("compile option ", key, "=", value, ": ", why));
}

absl::StatusOr<bool> ParseBoolValue(const std::string& key, const std::string& value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  return BadValue(key, value, "expected true or false");
}

absl::StatusOr<int64_t> ParseIntValue(const std::string& key, const std::string& value) {
  int64_t out = 0;
  if (!absl::SimpleAtoi(value, &out)) return BadValue(key, value, "expected an integer");
  return out;
}

std::vector<std::string> SplitList(const std::string& value) {
  std::vector<std::string> items;
  if (value.empty()) return items;
  for (absl::string_view part : absl::StrSplit(value, ',')) items.emplace_back(part);
  return items;
}

absl::Status CheckList(const std::string& key, const std::string& value,
                       const std::vector<std::string>& items) {
  for (const std::string& item : items) {
    if (item.empty()) return BadValue(key, value, "empty list item");
    if (item.find_first_of(" =\t\n") != std::string::npos) {
      return BadValue(key, value, absl::StrCat("list item '", item, "' contains a space or '='"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckWord(const std::string& key, const std::string& value) {
  if (value.find_first_of(" \t\n") != std::string::npos) {
    return BadValue(key, value, "must not contain whitespace");
  }
  return absl::OkStatus();
}

// An int option with an inclusive range check.
OptionField IntField(const char* key, int CompileOptions::*member, int64_t low, int64_t high,
                     const char* range_text) {
  return {key,
          [=](CompileOptions& o, const std::string& v) -> absl::Status {
            absl::StatusOr<int64_t> n = ParseIntValue(key, v);
            if (!n.ok()) return n.status();
            if (*n < low || *n > high) return BadValue(key, v, range_text);
            o.*member = static_cast<int>(*n);
            return absl::OkStatus();
          },
          [=](const CompileOptions& o) { return std::to_string(o.*member); }};
}

OptionField BoolField(const char* key, bool CompileOptions::*member) {
  return {key,
          [=](CompileOptions& o, const std::string& v) -> absl::Status {
            absl::StatusOr<bool> b = ParseBoolValue(key, v);
            if (!b.ok()) return b.status();
            o.*member = *b;
            return absl::OkStatus();
          },
          [=](const CompileOptions& o) { return std::string(o.*member ? "true" : "false"); }};
}

OptionField ListField(const char* key, std::vector<std::string> CompileOptions::*member) {
  return {key,
          [=](CompileOptions& o, const std::string& v) -> absl::Status {
            std::vector<std::string> items = SplitList(v);
            if (absl::Status s = CheckList(key, v, items); !s.ok()) return s;
            o.*member = std::move(items);
            return absl::OkStatus();
          },
          [=](const CompileOptions& o) { return absl::StrJoin(o.*member, ","); }};
}

absl::Status SetDevice(CompileOptions& o, const std::string& v) {
  if (v != "cpu" && v != "cuda") return BadValue("device", v, "expected cpu or cuda");
  o.device = v;
  return absl::OkStatus();
}

absl::Status SetVectorWidth(CompileOptions& o, const std::string& v) {
  absl::StatusOr<int64_t> n = ParseIntValue("vector_width", v);
  if (!n.ok()) return n.status();
  if (*n != 0 && *n != 1 && *n != 2 && *n != 4 && *n != 8 && *n != 16) {
    return BadValue("vector_width", v, "expected 0 (target default), 1, 2, 4, 8 or 16");
  }
  o.vector_width = static_cast<int>(*n);
  return absl::OkStatus();
}

absl::Status SetReduceOrder(CompileOptions& o, const std::string& v) {
  if (v == "sequential") {
    o.reduce_order = ReduceOrder::kSequential;
  } else if (v == "tree") {
    o.reduce_order = ReduceOrder::kTree;
  } else {
    return BadValue("reduce_order", v, "expected sequential or tree");
  }
  return absl::OkStatus();
}

std::string ReduceOrderText(const CompileOptions& o) {
  return o.reduce_order == ReduceOrder::kTree ? "tree" : "sequential";
}

absl::Status SetMaxPassApplications(CompileOptions& o, const std::string& v) {
  absl::StatusOr<int64_t> n = ParseIntValue("max_pass_applications", v);
  if (!n.ok()) return n.status();
  if (*n < -1) return BadValue("max_pass_applications", v, "expected -1 (no cap) or >= 0");
  o.max_pass_applications = *n;
  return absl::OkStatus();
}

absl::Status SetDumpDir(CompileOptions& o, const std::string& v) {
  if (absl::Status s = CheckWord("dump_dir", v); !s.ok()) return s;
  o.dump_dir = v;
  return absl::OkStatus();
}

absl::Status SetCudaArch(CompileOptions& o, const std::string& v) {
  if (v == "auto") {
    o.cuda_arch = v;
    return absl::OkStatus();
  }
  int64_t number = 0;
  // Digits only: SimpleAtoi alone takes "sm_8 " (found by the flags fuzz
  // harness: the space did not survive ToString and Parse).
  const bool digits = v.size() >= 4 && v.size() <= 12 &&
                      v.find_first_not_of("0123456789", 3) == std::string::npos;
  if (!digits || v.rfind("sm_", 0) != 0 || !absl::SimpleAtoi(v.substr(3), &number) ||
      number <= 0) {
    return BadValue("cuda_arch", v, "expected auto or sm_<number>, e.g. sm_90");
  }
  o.cuda_arch = absl::StrCat("sm_", number);
  return absl::OkStatus();
}

absl::Status SetBackend(CompileOptions& o, const std::string& v) {
  if (absl::Status s = CheckWord("backend", v); !s.ok()) return s;
  if (v.find(',') != std::string::npos) return BadValue("backend", v, "must not contain ','");
  o.backend = v == "builtin" ? "" : v;
  return absl::OkStatus();
}

absl::Status SetBackendOptions(CompileOptions& o, const std::string& v) {
  std::vector<std::string> items = SplitList(v);
  if (absl::Status s = CheckList("backend_options", v, items); !s.ok()) return s;
  for (const std::string& item : items) {
    if (item.find(':') == std::string::npos || item[0] == ':') {
      return BadValue("backend_options", v, absl::StrCat("item '", item, "' is not KEY:VALUE"));
    }
  }
  o.backend_options = std::move(items);
  return absl::OkStatus();
}

const std::vector<OptionField>& Fields() {
  static const std::vector<OptionField>* const fields = new std::vector<OptionField>{
      {"device", SetDevice, [](const CompileOptions& o) { return o.device; }},
      IntField("opt_level", &CompileOptions::opt_level, 0, 2, "expected 0, 1 or 2"),
      ListField("disable_passes", &CompileOptions::disable_passes),
      {"max_pass_applications", SetMaxPassApplications,
       [](const CompileOptions& o) { return std::to_string(o.max_pass_applications); }},
      BoolField("fast_math", &CompileOptions::fast_math),
      BoolField("low_precision", &CompileOptions::low_precision),
      {"reduce_order", SetReduceOrder, ReduceOrderText},
      {"vector_width", SetVectorWidth,
       [](const CompileOptions& o) { return std::to_string(o.vector_width); }},
      IntField("threads", &CompileOptions::threads, 1, 1024, "expected 1..1024"),
      ListField("faults", &CompileOptions::faults),
      {"dump_dir", SetDumpDir, [](const CompileOptions& o) { return o.dump_dir; }},
      BoolField("checked", &CompileOptions::checked),
      {"cuda_arch", SetCudaArch, [](const CompileOptions& o) { return o.cuda_arch; }},
      BoolField("tensor_cores", &CompileOptions::tensor_cores),
      BoolField("tf32", &CompileOptions::tf32),
      IntField("cuda_max_fused_ops", &CompileOptions::cuda_max_fused_ops, 0, 1 << 30,
               "expected 0 (no cap) or the most ops of a fused CUDA kernel"),
      {"backend", SetBackend, [](const CompileOptions& o) { return o.backend; }},
      {"backend_options", SetBackendOptions,
       [](const CompileOptions& o) { return absl::StrJoin(o.backend_options, ","); }},
  };
  return *fields;
}

std::string ValidKeys() {
  std::vector<std::string> keys;
  for (const OptionField& field : Fields()) keys.push_back(field.key);
  return absl::StrJoin(keys, ", ");
}

}  // namespace

absl::Status CompileOptions::Set(const std::string& key, const std::string& value) {
  for (const OptionField& field : Fields()) {
    if (key == field.key) return field.set(*this, value);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown compile option '", key, "' (value '",
                                                 value, "'); valid keys: ", ValidKeys()));
}

absl::Status CompileOptions::Apply(absl::Span<const std::string> key_values) {
  for (const std::string& item : key_values) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat("compile option '", item,
                                                     "': expected key=value; valid keys: ",
                                                     ValidKeys()));
    }
    if (absl::Status s = Set(item.substr(0, eq), item.substr(eq + 1)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::vector<std::pair<std::string, std::string>> CompileOptions::Items() const {
  std::vector<std::pair<std::string, std::string>> items;
  for (const OptionField& field : Fields()) items.emplace_back(field.key, field.get(*this));
  return items;
}

std::string CompileOptions::ToString() const {
  const std::vector<std::pair<std::string, std::string>> defaults = CompileOptions().Items();
  const std::vector<std::pair<std::string, std::string>> mine = Items();
  std::vector<std::string> parts;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (mine[i].second != defaults[i].second) {
      parts.push_back(absl::StrCat(mine[i].first, "=", mine[i].second));
    }
  }
  return absl::StrJoin(parts, " ");
}

absl::StatusOr<CompileOptions> CompileOptions::Parse(const std::string& text) {
  std::vector<std::string> items = absl::StrSplit(text, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
  CompileOptions options;
  if (absl::Status s = options.Apply(items); !s.ok()) return s;
  return options;
}

}  // namespace rk::compiler
