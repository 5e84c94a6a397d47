// The geometry of the 2-D window ops over NCHW tensors (conv2d, max_pool2d,
// avg_pool2d): per spatial axis (0: H, 1: W) the kernel extent, stride,
// padding before and after, and dilation, plus conv2d's groups and
// avg_pool2d's count_include_pad. Shape inference, the reference
// interpreter, kernel lowering, the generator and the minifier all read a
// node's window through ReadWindow, so they agree on what the attributes mean.
//
// Output size per axis (floor mode): (in + before + after - span) / stride + 1
// with span = dilation * (kernel - 1) + 1, the input extent one window covers;
// output element o of an axis reads input positions o * stride - before +
// t * dilation for t in [0, kernel), those outside [0, in) being padding.
//
// Tested by compiler/ir/shape_inference_test.cc.
#ifndef REPROKIT_COMPILER_IR_WINDOW_H_
#define REPROKIT_COMPILER_IR_WINDOW_H_

#include <cstdint>

#include "compiler/ir/attributes.h"
#include "compiler/ir/op.h"
#include "compiler/ir/shape.h"

namespace rk::compiler {

struct Window2d {
  int64_t kernel[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t pad_before[2] = {0, 0};  // top, left
  int64_t pad_after[2] = {0, 0};   // bottom, right
  int64_t dilation[2] = {1, 1};    // avg_pool2d has none: 1
  int64_t groups = 1;              // conv2d only
  bool count_include_pad = false;  // avg_pool2d only

  // Input positions one window spans along `axis`.
  int64_t Span(int axis) const { return dilation[axis] * (kernel[axis] - 1) + 1; }
  // The output size along `axis` for an input of `in`, or -1 when one window
  // does not fit in the padded input.
  int64_t OutputSize(int axis, int64_t in) const;
  // Whether some window reaches padding before (resp. after) the input along
  // `axis` for an input of `in` (which must give an output size >= 1).
  bool ReadsPaddingBefore(int axis) const { return pad_before[axis] > 0; }
  bool ReadsPaddingAfter(int axis, int64_t in) const;
  // Whether every output position along `axis` has at least one tap inside
  // the input (false when some window holds padding only, which a dilated
  // or heavily padded window can).
  bool EveryWindowReal(int axis, int64_t in) const;
};

// conv2d, max_pool2d and avg_pool2d.
bool IsWindowOp(Op op);

// The window of a node of `op` with attributes `attrs`; conv2d takes its
// kernel from `weights` ([O, C/groups, kH, kW]), the pools from `kernel`.
// Lenient: a missing or malformed attribute reads as its default (InferType
// is what rejects those).
Window2d ReadWindow(Op op, const Attributes& attrs, const Shape& weights = Shape());

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_WINDOW_H_
