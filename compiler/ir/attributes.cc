#include "compiler/ir/attributes.h"

#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace rk::compiler {
namespace {

const char* KindName(const AttrValue& v) {
  switch (v.index()) {
    case 0: return "int";
    case 1: return "float";
    case 2: return "bool";
    case 3: return "string";
    case 4: return "int list";
    case 5: return "dtype";
    case 6: return "tensor";
  }
  return "?";
}

template <typename T>
absl::StatusOr<T> GetAs(const std::map<std::string, AttrValue>& values, const std::string& name,
                        const char* want) {
  auto it = values.find(name);
  if (it == values.end()) return absl::NotFoundError(absl::StrCat("missing attribute '", name, "'"));
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' must be ", want,
                                                 ", not ", KindName(it->second)));
}

}  // namespace

bool AttrValueEquals(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, HostTensor>) {
          return x.BitwiseEqual(y);
        } else if constexpr (std::is_same_v<T, double>) {
          return std::memcmp(&x, &y, sizeof(double)) == 0;
        } else {
          return x == y;
        }
      },
      a);
}

absl::StatusOr<int64_t> Attributes::GetInt(const std::string& name) const {
  return GetAs<int64_t>(values_, name, "an int");
}

absl::StatusOr<double> Attributes::GetFloat(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  }
  return GetAs<double>(values_, name, "a float");
}

absl::StatusOr<bool> Attributes::GetBool(const std::string& name) const {
  return GetAs<bool>(values_, name, "a bool");
}

absl::StatusOr<std::string> Attributes::GetString(const std::string& name) const {
  return GetAs<std::string>(values_, name, "a string");
}

absl::StatusOr<std::vector<int64_t>> Attributes::GetInts(const std::string& name) const {
  return GetAs<std::vector<int64_t>>(values_, name, "an int list");
}

absl::StatusOr<DType> Attributes::GetDType(const std::string& name) const {
  return GetAs<DType>(values_, name, "a dtype");
}

absl::StatusOr<HostTensor> Attributes::GetTensor(const std::string& name) const {
  return GetAs<HostTensor>(values_, name, "a tensor");
}

bool Attributes::operator==(const Attributes& other) const {
  if (values_.size() != other.values_.size()) return false;
  for (auto a = values_.begin(), b = other.values_.begin(); a != values_.end(); ++a, ++b) {
    if (a->first != b->first || !AttrValueEquals(a->second, b->second)) return false;
  }
  return true;
}

}  // namespace rk::compiler
