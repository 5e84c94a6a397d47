// conv_affine_fold: folds the per-channel affine chain after a convolution
// into the convolution's weights. An inference BatchNormalization reaches the
// graph, through the ONNX importer and constant_fold, as
//   c = conv2d(x, W);  y = (((c - mean) / sqrt(var + eps)) * scale) + bias
// with constant [C,1,1] operands; exporters that do not fold it (the
// TorchScript exporter without constant folding, training=PRESERVE) leave one
// after every convolution of a CNN. Any chain of add/sub/mul/div by constants
// that are per output channel (or scalars) is y = a[c] * c + d[c], so it
// becomes
//   y = conv2d(x, W * a[c]) + d[c]        (the add only where some d != 0)
// with a and d accumulated in f64 along the chain and each new weight and
// bias rounded once to the dtype: one rounding per weight instead of four per
// element, closer to the fp64 reference than the chain. The graph is then the
// one a folding exporter writes (conv, bias add), and the GPU's convolution
// kernel no longer carries the chain's loads and division into its users.
//
// Applies only where every step is safe: f32/f64 convolutions with constant
// weights; each node before the chain's last has exactly one user and is not
// an output; operands broadcast per output channel without growing the type;
// constant - chain is a step, constant / chain is not; every a finite and
// nonzero and every d finite (a zero variance or scale stays as written). A
// chain of a single add is already what it would become, and is left alone.
//
// Tested by compiler/passes/conv_affine_fold_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_CONV_AFFINE_FOLD_H_
#define REPROKIT_COMPILER_PASSES_CONV_AFFINE_FOLD_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

absl::StatusOr<bool> ConvAffineFold(Graph& graph, PassContext& context);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_CONV_AFFINE_FOLD_H_
