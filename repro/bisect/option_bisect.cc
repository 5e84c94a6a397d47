#include "repro/bisect/option_bisect.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "repro/bisect/ddmin.h"

namespace rk::repro {
namespace {

// Keys whose values are sets of names, bisected element by element.
bool IsListKey(const std::string& key) {
  return key == "disable_passes" || key == "faults" || key == "backend_options";
}

std::vector<std::string> SplitList(const std::string& value) {
  if (value.empty()) return {};
  return absl::StrSplit(value, ',');
}

bool Contains(const std::vector<std::string>& list, const std::string& element) {
  return std::find(list.begin(), list.end(), element) != list.end();
}

std::string VerdictLabel(const Verdict& v) {
  return IsFailure(v.kind) ? v.signature.ToString() : std::string(VerdictKindName(v.kind));
}

std::string ItemList(const std::vector<OptionItem>& items) {
  std::vector<std::string> parts;
  for (const OptionItem& item : items) parts.push_back(item.ToString());
  return absl::StrJoin(parts, " ");
}

// "key=value" for every key on which `options` differs from `good`.
std::string ChangedKeys(const compiler::CompileOptions& good,
                        const compiler::CompileOptions& options) {
  const auto before = good.Items(), after = options.Items();
  std::vector<std::string> parts;
  for (size_t i = 0; i < after.size(); ++i) {
    if (after[i].second != before[i].second) {
      parts.push_back(absl::StrCat(after[i].first, "=", after[i].second));
    }
  }
  return absl::StrJoin(parts, " ");
}

}  // namespace

std::string OptionItem::ToString() const {
  switch (change) {
    case Change::kSet:
      return absl::StrCat(key, "=", value);
    case Change::kAdd:
      return absl::StrCat(key, "+=", value);
    case Change::kRemove:
      return absl::StrCat(key, "-=", value);
  }
  return key;
}

std::vector<OptionItem> DifferingItems(const compiler::CompileOptions& good,
                                       const compiler::CompileOptions& bad) {
  const auto good_items = good.Items(), bad_items = bad.Items();
  std::vector<OptionItem> items;
  for (size_t i = 0; i < bad_items.size(); ++i) {
    const std::string& key = bad_items[i].first;
    const std::string& good_value = good_items[i].second;
    const std::string& bad_value = bad_items[i].second;
    if (key == "dump_dir" || good_value == bad_value) continue;
    if (!IsListKey(key)) {
      items.push_back({key, bad_value, OptionItem::Change::kSet});
      continue;
    }
    const std::vector<std::string> g = SplitList(good_value), b = SplitList(bad_value);
    for (const std::string& e : g) {
      if (!Contains(b, e)) items.push_back({key, e, OptionItem::Change::kRemove});
    }
    for (const std::string& e : b) {
      if (!Contains(g, e)) items.push_back({key, e, OptionItem::Change::kAdd});
    }
  }
  return items;
}

absl::StatusOr<compiler::CompileOptions> ApplyItems(const compiler::CompileOptions& good,
                                                    absl::Span<const OptionItem> items) {
  compiler::CompileOptions out = good;
  std::map<std::string, std::vector<std::string>> lists;
  for (const auto& [key, value] : good.Items()) {
    if (IsListKey(key)) lists[key] = SplitList(value);
  }
  for (const OptionItem& item : items) {
    if (item.change == OptionItem::Change::kSet) {
      if (absl::Status s = out.Set(item.key, item.value); !s.ok()) return s;
      continue;
    }
    std::vector<std::string>& list = lists[item.key];
    if (item.change == OptionItem::Change::kRemove) {
      list.erase(std::remove(list.begin(), list.end(), item.value), list.end());
    } else if (!Contains(list, item.value)) {
      list.push_back(item.value);
    }
  }
  for (const auto& [key, list] : lists) {
    if (absl::Status s = out.Set(key, absl::StrJoin(list, ",")); !s.ok()) return s;
  }
  return out;
}

absl::StatusOr<OptionBisectResult> BisectOptions(FailureProbe& probe,
                                                 const compiler::CompileOptions& good) {
  OptionBisectResult result;
  const int64_t judged_before = probe.judgements();
  result.good = good;
  result.bad = probe.target().options;
  result.differing = DifferingItems(good, result.bad);
  absl::StatusOr<Verdict> good_verdict = probe.Judge(good);
  if (!good_verdict.ok()) return good_verdict.status();
  result.good_verdict = VerdictLabel(*good_verdict);
  result.good_fails = probe.IsTargetFailure(*good_verdict);
  if (result.good_fails || result.differing.empty()) {
    result.judgements = probe.judgements() - judged_before;
    return result;
  }
  auto items_of = [&](absl::Span<const int> subset) {
    std::vector<OptionItem> chosen;
    for (int i : subset) chosen.push_back(result.differing[i]);
    return chosen;
  };
  SubsetTest test = [&](absl::Span<const int> subset) -> absl::StatusOr<bool> {
    absl::StatusOr<compiler::CompileOptions> options = ApplyItems(good, items_of(subset));
    if (!options.ok()) return options.status();
    absl::StatusOr<Verdict> v = probe.Judge(*options);
    if (!v.ok()) return v.status();
    return probe.IsTargetFailure(*v);
  };
  absl::StatusOr<std::vector<int>> minimal =
      Ddmin(static_cast<int>(result.differing.size()), test);
  if (!minimal.ok()) return minimal.status();
  result.minimal = items_of(*minimal);
  absl::StatusOr<compiler::CompileOptions> minimal_options = ApplyItems(good, result.minimal);
  if (!minimal_options.ok()) return minimal_options.status();
  result.minimal_options = *std::move(minimal_options);
  result.judgements = probe.judgements() - judged_before;
  return result;
}

std::string OptionBisectResult::ToText() const {
  std::string out;
  absl::StrAppend(&out, "good options: ", good.ToString().empty() ? "(defaults)" : good.ToString(),
                  "  -> ", good_verdict, "\n");
  absl::StrAppend(&out, "bad options:  ", bad.ToString().empty() ? "(defaults)" : bad.ToString(),
                  "\n");
  absl::StrAppend(&out, "differences (", differing.size(), "): ", ItemList(differing), "\n");
  if (good_fails) {
    absl::StrAppend(&out, "the good options fail the same way: the option difference is not "
                          "to blame\n");
  } else if (differing.empty()) {
    absl::StrAppend(&out, "the options do not differ\n");
  } else {
    absl::StrAppend(&out, "minimal failing difference (", minimal.size(), " of ", differing.size(),
                    "): ", ItemList(minimal), "\n");
    absl::StrAppend(&out, ChangedKeys(good, minimal_options),
                    minimal.size() == 1 ? " is enough" : " are needed together", "\n");
    absl::StrAppend(&out, "failing options: ", minimal_options.ToString(), "\n");
  }
  absl::StrAppend(&out, "compiles: ", judgements, " judged by the oracle\n");
  return out;
}

Json OptionBisectResult::ToJson() const {
  auto list = [](const std::vector<OptionItem>& items) {
    Json a = Json::MakeArray();
    for (const OptionItem& item : items) a.push_back(item.ToString());
    return a;
  };
  Json j = Json::MakeObject();
  j.Set("mode", "options");
  j.Set("good_options", good.ToString());
  j.Set("bad_options", bad.ToString());
  j.Set("good_verdict", good_verdict);
  j.Set("good_fails", good_fails);
  j.Set("differing", list(differing));
  j.Set("minimal", list(minimal));
  if (!good_fails && !differing.empty()) j.Set("minimal_options", minimal_options.ToString());
  j.Set("judgements", judgements);
  return j;
}

}  // namespace rk::repro
