// PromoteToF64: the graph the oracle's fp64 reference runs
// (docs/ARCHITECTURE.md, "The flow of one judgement"; cf. PyTorch's
// cast_to_fp64). Every float dtype becomes f64: graph inputs, node
// result types, cast targets, full/iota dtypes and literal constants (their
// values converted exactly; a `full`'s value is first rounded to its declared
// dtype, which is the value the program holds, and so are a float clip's
// bounds and a float pad's value). Integer and bool types, node ids, names,
// attributes otherwise, and outputs are kept, so node i of the result
// corresponds to node i of the input.
//
// Needs a verified graph; the result is rebuilt through GraphBuilder, so it
// is verified too.
//
// Tested by compiler/reference/promote_test.cc.
#ifndef REPROKIT_COMPILER_REFERENCE_PROMOTE_H_
#define REPROKIT_COMPILER_REFERENCE_PROMOTE_H_

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace rk::compiler {

// f16, bf16, f32 -> f64; anything else unchanged.
DType PromotedDType(DType dtype);

absl::StatusOr<Graph> PromoteToF64(const Graph& graph);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_REFERENCE_PROMOTE_H_
