// ONNX MaxPool and AveragePool over 2 spatial dims (max_pool2d, avg_pool2d;
// 1 and 3 spatial dims go to import_pool_nd.cc, ceil_mode=1 through
// import_pool_ceil.cc) and GlobalMaxPool / GlobalAveragePool as reductions
// over the spatial dims.
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {

absl::Status ConvertPool(NodeContext& ctx) {
  const bool max = ctx.node().op_type() == "MaxPool";
  RK_ASSIGN_OR_RETURN(Op op, OpNamed(ctx, max ? "max_pool2d" : "avg_pool2d"));
  if (ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) {
    return ctx.Unsupported("the Indices output");
  }
  RK_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.AttrInt("ceil_mode", 0));
  RK_ASSIGN_OR_RETURN(int64_t storage_order, ctx.AttrInt("storage_order", 0));
  if (storage_order != 0) return ctx.Unsupported("storage_order=1");
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  if (ctx.type(x).shape.rank() != 4) return ConvertPoolNd(ctx);  // 1-D, 3-D
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> kernel, ctx.AttrInts("kernel_shape"));
  if (!kernel.has_value()) return ctx.Error("no kernel_shape");
  RK_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, ctx.type(x).shape, *kernel));
  RK_ASSIGN_OR_RETURN(int64_t include, ctx.AttrInt("count_include_pad", 0));
  if (ceil_mode != 0) {
    RK_RETURN_IF_ERROR(ApplyCeilMode(ctx, ctx.type(x).shape, w.kernel, w.strides, w.dilations,
                                     !max && include != 0, w.pads));
  }
  Attributes attrs;
  attrs.Set("kernel", w.kernel);
  attrs.Set("strides", w.strides);
  attrs.Set("pads", w.pads);
  if (max) {
    attrs.Set("dilations", w.dilations);
  } else {
    if (w.dilations != std::vector<int64_t>{1, 1}) return ctx.Unsupported("dilated average pooling");
    attrs.Set("count_include_pad", include != 0);
  }
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(op, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertGlobalPool(NodeContext& ctx) {
  const bool max = ctx.node().op_type() == "GlobalMaxPool";
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const int rank = ctx.type(x).shape.rank();
  if (rank < 3) return ctx.Error("the input needs spatial dims (rank >= 3)");
  std::vector<int64_t> axes;
  for (int k = 2; k < rank; ++k) axes.push_back(k);
  Attributes attrs;
  attrs.Set("axes", std::move(axes));
  attrs.Set("keepdim", true);
  RK_ASSIGN_OR_RETURN(NodeId r,
                      ctx.Emit(max ? Op::kReduceMax : Op::kReduceMean, {x}, std::move(attrs)));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
