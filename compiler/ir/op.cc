#include "compiler/ir/op.h"

namespace rk::compiler {
namespace {

struct OpInfo {
  std::string_view name;
  int arity;
  OpKind kind;
};

constexpr OpInfo kOpInfo[] = {
#define OP(name, text, arity, kind) {text, arity, OpKind::kind},
#include "compiler/ir/ops.def"
#undef OP
};

}  // namespace

std::string_view OpName(Op op) { return kOpInfo[static_cast<int>(op)].name; }

std::optional<Op> ParseOp(std::string_view name) {
  for (Op op : kAllOps) {
    if (OpName(op) == name) return op;
  }
  return std::nullopt;
}

int OpArity(Op op) { return kOpInfo[static_cast<int>(op)].arity; }

OpKind GetOpKind(Op op) { return kOpInfo[static_cast<int>(op)].kind; }

bool IsElementwise(Op op) {
  switch (GetOpKind(op)) {
    case OpKind::kUnary:
    case OpKind::kBinary:
    case OpKind::kCompare:
    case OpKind::kLogic:
    case OpKind::kSelect:
    case OpKind::kCast:
      return true;
    default:
      return false;
  }
}

}  // namespace rk::compiler
