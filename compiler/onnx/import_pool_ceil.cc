// Pooling with ceil_mode=1 as explicit padding: the windows a ceiling output
// size adds at the end of an axis read past the padded input, and extending
// the padding after the input by what they read gives the same result, since
// max_pool2d's padding never wins and avg_pool2d without count_include_pad
// divides by the real taps only.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {

absl::Status ApplyCeilMode(NodeContext& ctx, const Shape& x, absl::Span<const int64_t> kernel,
                           absl::Span<const int64_t> strides,
                           absl::Span<const int64_t> dilations, bool counts_padding,
                           std::vector<int64_t>& pads) {
  const int spatial = static_cast<int>(kernel.size());
  // Out-of-range attributes are shape inference's to refuse; the arithmetic
  // below stays far from overflow.
  constexpr int64_t kMaxAttr = int64_t{1} << 31;
  auto in_range = [&](absl::Span<const int64_t> v) {
    for (int64_t e : v) {
      if (e < 0 || e > kMaxAttr) return false;
    }
    return true;
  };
  if (!in_range(kernel) || !in_range(strides) || !in_range(dilations) || !in_range(pads) ||
      static_cast<int>(strides.size()) != spatial ||
      static_cast<int>(dilations.size()) != spatial ||
      static_cast<int>(pads.size()) != 2 * spatial) {
    return absl::OkStatus();
  }
  for (int k = 0; k < spatial; ++k) {
    const int64_t in = x.dim(2 + k);
    const int64_t stride = strides[k];
    const int64_t span = dilations[k] * (kernel[k] - 1) + 1;
    const int64_t padded = in + pads[k] + pads[k + spatial];
    // A window that does not fit, or a bad stride, is shape inference's to
    // report.
    if (stride < 1 || span < 1 || padded < span || kernel[k] < 1) continue;
    int64_t out = (padded - span + stride - 1) / stride + 1;
    // PyTorch's rule, which ONNX adopted: a last window that would start in
    // the padding after the input is dropped.
    if ((out - 1) * stride >= in + pads[k]) --out;
    const int64_t extra = (out - 1) * stride + span - padded;
    if (extra <= 0) continue;
    if (counts_padding) {
      return ctx.Unsupported(
          absl::StrCat("ceil_mode=1 with count_include_pad=1 where a window passes the padding (",
                       "spatial axis ", k, ")"));
    }
    pads[k + spatial] += extra;
  }
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
