#include "compiler/kernel/kernel_ir.h"

#include "absl/strings/str_cat.h"

namespace rk::compiler::kernel {
namespace {

std::string ExprText(const Kernel& k, int32_t id, int depth = 0) {
  if (id < 0) return "?";
  const Expr& e = k.exprs[id];
  if (depth > 24) return absl::StrCat("e", id);
  auto sub = [&](int32_t x) { return ExprText(k, x, depth + 1); };
  switch (e.kind) {
    case ExprKind::kConst:
      return IsFloat(e.dtype) ? absl::StrCat(e.float_value, ":", std::string(DTypeName(e.dtype)))
                              : absl::StrCat(e.int_value);
    case ExprKind::kLoopVar: return absl::StrCat("i", e.var);
    case ExprKind::kLoad: return absl::StrCat("b", e.buffer, "[", sub(e.a), "]");
    case ExprKind::kAccRead: return absl::StrCat("acc", e.acc);
    case ExprKind::kRunCounter: return "run_counter";
    case ExprKind::kCast: return absl::StrCat("cast<", std::string(DTypeName(e.dtype)), ">(", sub(e.a), ")");
    case ExprKind::kIndex: {
      static constexpr const char* kOps[] = {" + ", " * ", " / ", " % "};
      return absl::StrCat("(", sub(e.a), kOps[static_cast<int>(e.index_op)], sub(e.b), ")");
    }
    case ExprKind::kOp: {
      std::string text = absl::StrCat(std::string(OpName(e.op)), "<", std::string(DTypeName(e.dtype)), ">(", sub(e.a));
      if (e.b >= 0) absl::StrAppend(&text, ", ", sub(e.b));
      if (e.c >= 0) absl::StrAppend(&text, ", ", sub(e.c));
      return text + ")";
    }
  }
  return "?";
}

void PrintStmts(const Kernel& k, const std::vector<Stmt>& body, int indent, std::string& out) {
  const std::string pad(indent * 2, ' ');
  for (const Stmt& s : body) {
    switch (s.kind) {
      case StmtKind::kLoop:
        absl::StrAppend(&out, pad, s.parallel ? "parallel " : "", "for i", s.var, " in [0, ",
                        s.extent, ") {\n");
        PrintStmts(k, s.body, indent + 1, out);
        absl::StrAppend(&out, pad, "}\n");
        break;
      case StmtKind::kStore:
        absl::StrAppend(&out, pad, "b", s.buffer, "[", ExprText(k, s.index),
                        "] = ", ExprText(k, s.value), "\n");
        break;
      case StmtKind::kAccInit:
        absl::StrAppend(&out, pad, "acc", s.acc, " = ", ExprText(k, s.value), "\n");
        break;
      case StmtKind::kAccUpdate:
        absl::StrAppend(&out, pad, "acc", s.acc, " = ", std::string(OpName(s.combine)), "(acc", s.acc, ", ",
                        ExprText(k, s.value), ")",
                        s.order == AccumulationOrder::kReassociated ? "  // reassociated"
                        : s.order == AccumulationOrder::kTree       ? "  // tree"
                                                                    : "",
                        "\n");
        break;
      case StmtKind::kArgmaxUpdate:
        absl::StrAppend(&out, pad, "(acc", s.acc, ", acc", s.acc + 1, ") = argmax_step(",
                        ExprText(k, s.value), ", ", ExprText(k, s.index), ")\n");
        break;
      case StmtKind::kNullLoad:
        absl::StrAppend(&out, pad, "load *null  // injected fault: runtime_crash\n");
        break;
    }
  }
}

const char* RoleName(BufferRole role) {
  switch (role) {
    case BufferRole::kInput: return "input";
    case BufferRole::kConstant: return "constant";
    case BufferRole::kOutput: return "output";
    case BufferRole::kTemp: return "temp";
    case BufferRole::kLocal: return "local";
  }
  return "?";
}

}  // namespace

std::string PrintKernel(const Program& program, const Kernel& kernel) {
  std::string out = absl::StrCat("kernel ", kernel.name, "  // ", kernel.detail, "\n");
  (void)program;
  for (size_t a = 0; a < kernel.accumulators.size(); ++a) {
    absl::StrAppend(&out, "  acc", a, ": ", std::string(DTypeName(kernel.accumulators[a])), "\n");
  }
  PrintStmts(kernel, kernel.body, 1, out);
  return out;
}

std::string PrintProgram(const Program& program) {
  std::string out;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer& buf = program.buffers[b];
    absl::StrAppend(&out, "b", b, ": ", RoleName(buf.role), " ", buf.type.ToString(), " ",
                    buf.name);
    if (buf.role == BufferRole::kTemp) absl::StrAppend(&out, " @arena+", buf.arena_offset);
    if (buf.external_index >= 0) absl::StrAppend(&out, " #", buf.external_index);
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "arena: ", program.arena_bytes, " bytes\n\n");
  for (const Kernel& k : program.kernels) absl::StrAppend(&out, PrintKernel(program, k), "\n");
  return out;
}

}  // namespace rk::compiler::kernel
