// Typed node attributes: int, float, bool, string, int list (axes, shapes),
// dtype and literal tensor. Stored sorted by name, so printing and hashing never
// depend on insertion order.
//
// Tested by compiler/ir/attributes_test.cc.
#ifndef REPROKIT_COMPILER_IR_ATTRIBUTES_H_
#define REPROKIT_COMPILER_IR_ATTRIBUTES_H_

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/shape.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler {

using AttrValue =
    std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, DType, HostTensor>;

// Equality that compares literal tensors by value (bytes), doubles bitwise.
bool AttrValueEquals(const AttrValue& a, const AttrValue& b);

class Attributes {
 public:
  Attributes() = default;
  Attributes(std::initializer_list<std::pair<const std::string, AttrValue>> init)
      : values_(init) {}

  void Set(const std::string& name, AttrValue value) { values_[name] = std::move(value); }
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  void Erase(const std::string& name) { values_.erase(name); }
  const std::map<std::string, AttrValue>& values() const { return values_; }
  bool empty() const { return values_.empty(); }

  // Typed getters: NotFound when missing, InvalidArgument on a type mismatch;
  // the message names the attribute. GetFloat accepts an int value too.
  absl::StatusOr<int64_t> GetInt(const std::string& name) const;
  absl::StatusOr<double> GetFloat(const std::string& name) const;
  absl::StatusOr<bool> GetBool(const std::string& name) const;
  absl::StatusOr<std::string> GetString(const std::string& name) const;
  absl::StatusOr<std::vector<int64_t>> GetInts(const std::string& name) const;
  absl::StatusOr<DType> GetDType(const std::string& name) const;
  absl::StatusOr<HostTensor> GetTensor(const std::string& name) const;

  bool operator==(const Attributes& other) const;
  bool operator!=(const Attributes& other) const { return !(*this == other); }

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_ATTRIBUTES_H_
