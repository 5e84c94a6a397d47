#include "compiler/ir/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rk::compiler {

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::vector<int64_t> Shape::Strides() const {
  std::vector<int64_t> strides(dims_.size(), 1);
  for (int i = rank() - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims_[i + 1];
  return strides;
}

std::string Shape::ToString() const { return absl::StrCat("[", absl::StrJoin(dims_, ","), "]"); }

std::string TensorType::ToString() const { return absl::StrCat(std::string(DTypeName(dtype)), shape.ToString()); }

}  // namespace rk::compiler
