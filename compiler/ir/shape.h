// Static tensor shapes and tensor types (dtype + shape).
//
// Dimensions are reached only through Shape's API (rank(), dim(), dims(),
// num_elements(), is_static()), never by assuming a representation, so a
// symbolic dimension can be added later without touching users that only need
// static shapes. Today every dimension is a non-negative integer.
//
// Tested by compiler/ir/shape_test.cc.
#ifndef REPROKIT_COMPILER_IR_SHAPE_H_
#define REPROKIT_COMPILER_IR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "compiler/ir/dtype.h"

namespace rk::compiler {

class Shape {
 public:
  Shape() = default;  // rank 0: a scalar
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  explicit Shape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int axis) const { return dims_[axis]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool is_static() const { return true; }
  // Product of the dimensions (1 for a scalar, 0 if any dim is 0).
  int64_t num_elements() const;
  // Row-major strides in elements.
  std::vector<int64_t> Strides() const;

  // "[8,128]", "[]" for a scalar.
  std::string ToString() const;

  bool operator==(const Shape& other) const { return dims_ == other.dims_; }
  bool operator!=(const Shape& other) const { return dims_ != other.dims_; }

 private:
  std::vector<int64_t> dims_;
};

struct TensorType {
  DType dtype = DType::kF32;
  Shape shape;

  TensorType() = default;
  TensorType(DType d, Shape s) : dtype(d), shape(std::move(s)) {}

  // "f32[8,128]".
  std::string ToString() const;
  int64_t num_elements() const { return shape.num_elements(); }
  int64_t byte_size() const { return shape.num_elements() * DTypeSize(dtype); }

  bool operator==(const TensorType& other) const {
    return dtype == other.dtype && shape == other.shape;
  }
  bool operator!=(const TensorType& other) const { return !(*this == other); }
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_SHAPE_H_
