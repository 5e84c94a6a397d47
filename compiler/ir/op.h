// The Op enum and its properties, generated from ops.def.
//
// Tested by compiler/ir/op_test.cc.
#ifndef REPROKIT_COMPILER_IR_OP_H_
#define REPROKIT_COMPILER_IR_OP_H_

#include <optional>
#include <string_view>

#include "absl/types/span.h"

namespace rk::compiler {

enum class OpKind {
  kSource,
  kUnary,
  kBinary,
  kCompare,
  kLogic,
  kSelect,
  kCast,
  kReduce,
  kScan,
  kLayout,
  kMatmul,
  kGather,
  kWindow,
  kComposite,
};

enum class Op {
#define OP(name, text, arity, kind) name,
#include "compiler/ir/ops.def"
#undef OP
};

inline constexpr Op kAllOps[] = {
#define OP(name, text, arity, kind) Op::name,
#include "compiler/ir/ops.def"
#undef OP
};

std::string_view OpName(Op op);  // text name, e.g. "reduce_sum"
std::optional<Op> ParseOp(std::string_view name);
int OpArity(Op op);  // -1 for variadic
OpKind GetOpKind(Op op);
// Elementwise: unary, binary, compare, logic, select and cast ops.
bool IsElementwise(Op op);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_OP_H_
