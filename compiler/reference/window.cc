// Reference kernels for the 2-D window ops over NCHW tensors (geometry:
// compiler/ir/window.h), in double, rounded once to the result dtype:
// - conv2d: out[n, o, ., .] sums x * w over the C/groups channels of o's
//   group (o / (O/groups)) and the kernel taps, in order (channel, kernel
//   row, kernel column); padded taps are skipped (zero padding);
// - max_pool2d: the largest tap, NaN if any tap is NaN; padded taps never
//   win (-inf when every tap of a window is padding);
// - avg_pool2d: the sum of the real taps divided by kH * kW when
//   count_include_pad, else by the number of real taps (0 / 0 = NaN when a
//   window holds none, as reduce_mean of nothing).
//
// Tested by compiler/reference/ops_window_test.cc.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "compiler/ir/window.h"
#include "compiler/reference/kernels.h"

namespace rk::compiler::reference_internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The real input position of tap `t` of output position `o` along `axis`,
// or -1 for padding.
int64_t Tap(const Window2d& w, int axis, int64_t o, int64_t t, int64_t in) {
  const int64_t p = o * w.stride[axis] - w.pad_before[axis] + t * w.dilation[axis];
  return p >= 0 && p < in ? p : -1;
}

}  // namespace

absl::StatusOr<HostTensor> EvalWindow(const Node& node, absl::Span<const HostTensor> operands) {
  const bool conv = node.op == Op::kConv2d;
  if (operands.size() != (conv ? 2u : 1u)) {
    return absl::InternalError(absl::StrCat(OpLabel(node.op), ": wrong operand count"));
  }
  const HostTensor& x = operands[0];
  const Shape& xs = x.shape();
  const Shape& os = node.type.shape;
  const Shape weights_shape = conv ? operands[1].shape() : Shape();
  const Window2d win = ReadWindow(node.op, node.attrs, weights_shape);
  if (xs.rank() != 4 || os.rank() != 4 || !IsFloat(x.dtype()) || os.dim(0) != xs.dim(0) ||
      win.OutputSize(0, xs.dim(2)) != os.dim(2) || win.OutputSize(1, xs.dim(3)) != os.dim(3) ||
      (!conv && os.dim(1) != xs.dim(1)) ||
      (conv && (weights_shape.rank() != 4 || weights_shape.dim(0) != os.dim(1) ||
                win.groups < 1 || os.dim(1) % win.groups != 0 ||
                weights_shape.dim(1) * win.groups != xs.dim(1)))) {
    return absl::InternalError(absl::StrCat(OpLabel(node.op), ": ", xs.ToString(), " cannot give ",
                                            os.ToString()));
  }
  const int64_t n_count = os.dim(0), channels = os.dim(1), ho_count = os.dim(2),
                wo_count = os.dim(3), h = xs.dim(2), w = xs.dim(3);
  const int64_t in_channels = xs.dim(1);
  const std::vector<double> xv = ReadDoubles(x);
  const std::vector<double> wv = conv ? ReadDoubles(operands[1]) : std::vector<double>();
  const int64_t group_in = conv ? weights_shape.dim(1) : 1;
  const int64_t group_out = conv ? channels / win.groups : 1;
  std::vector<double> result(node.type.num_elements());
  size_t next = 0;
  for (int64_t n = 0; n < n_count; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t oh = 0; oh < ho_count; ++oh) {
        for (int64_t ow = 0; ow < wo_count; ++ow) {
          double acc = node.op == Op::kMaxPool2d ? -kInf : 0.0;
          int64_t taps = 0;
          // conv2d: the channels of c's group; the pools: channel c itself.
          const int64_t first = conv ? (c / group_out) * group_in : c;
          for (int64_t k = 0; k < group_in; ++k) {
            for (int64_t i = 0; i < win.kernel[0]; ++i) {
              const int64_t ih = Tap(win, 0, oh, i, h);
              for (int64_t j = 0; j < win.kernel[1]; ++j) {
                const int64_t iw = Tap(win, 1, ow, j, w);
                if (ih < 0 || iw < 0) continue;
                const double v = xv[((n * in_channels + first + k) * h + ih) * w + iw];
                ++taps;
                if (conv) {
                  acc += v * wv[((c * group_in + k) * win.kernel[0] + i) * win.kernel[1] + j];
                } else if (node.op == Op::kMaxPool2d) {
                  if (std::isnan(v) || v > acc) acc = std::isnan(acc) ? acc : v;
                } else {
                  acc += v;
                }
              }
            }
          }
          if (node.op == Op::kAvgPool2d) {
            acc /= win.count_include_pad ? static_cast<double>(win.kernel[0] * win.kernel[1])
                                         : static_cast<double>(taps);
          }
          result[next++] = acc;
        }
      }
    }
  }
  HostTensor out(node.type);
  WriteDoubles(out, result);
  return out;
}

}  // namespace rk::compiler::reference_internal
