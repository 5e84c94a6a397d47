#include "compiler/cuda/planning/mma_matmul.h"

#include <algorithm>
#include <cstdlib>

namespace rk::compiler::cuda {

using kernel::Expr;
using kernel::ExprKind;
using kernel::IndexOp;
using kernel::Kernel;

namespace {

// "A multiple of every power of two": the value is zero.
constexpr int64_t kAnyMultiple = int64_t{1} << 40;

int64_t LowestPowerOfTwo(int64_t v) {
  if (v == 0) return kAnyMultiple;
  const uint64_t u = static_cast<uint64_t>(std::llabs(v));
  return std::min<int64_t>(static_cast<int64_t>(u & (~u + 1)), kAnyMultiple);
}

// Coefficients of the row, k and column variables in an affine index.
struct Terms {
  int64_t i = 0, k = 0, j = 0;
  Terms operator+(const Terms& o) const { return {i + o.i, k + o.k, j + o.j}; }
  Terms operator*(int64_t c) const { return {i * c, k * c, j * c}; }
};

class IndexAnalysis {
 public:
  IndexAnalysis(const Kernel& kernel, const MatmulPattern& mm) : kernel_(kernel), mm_(mm) {}

  // The index as base + i*ti + k*tk + j*tj, where base does not depend on
  // the three variables; nullopt when it is not of that form.
  std::optional<Terms> Linear(int32_t id) const {
    if (id < 0) return Terms{};
    const Expr& e = kernel_.exprs[id];
    switch (e.kind) {
      case ExprKind::kConst: return Terms{};
      case ExprKind::kLoopVar:
        if (e.var == mm_.i_var) return Terms{1, 0, 0};
        if (e.var == mm_.k_var) return Terms{0, 1, 0};
        if (e.var == mm_.j_var) return Terms{0, 0, 1};
        return Terms{};
      case ExprKind::kIndex: {
        if (!UsesTracked(id)) return Terms{};
        if (e.index_op == IndexOp::kAdd) {
          std::optional<Terms> a = Linear(e.a), b = Linear(e.b);
          if (!a || !b) return std::nullopt;
          return *a + *b;
        }
        if (e.index_op == IndexOp::kMul) {
          if (IsConst(e.b)) {
            std::optional<Terms> a = Linear(e.a);
            if (a) return *a * kernel_.exprs[e.b].int_value;
          } else if (IsConst(e.a)) {
            std::optional<Terms> b = Linear(e.b);
            if (b) return *b * kernel_.exprs[e.a].int_value;
          }
        }
        return std::nullopt;  // div, mod, or a product of two variables
      }
      default: return UsesTracked(id) ? std::nullopt : std::optional<Terms>(Terms{});
    }
  }

  // A power of two that divides the index for every value of the other
  // variables, with the row, k and column variables at zero.
  int64_t Multiple(int32_t id) const {
    if (id < 0) return kAnyMultiple;
    const Expr& e = kernel_.exprs[id];
    switch (e.kind) {
      case ExprKind::kConst: return LowestPowerOfTwo(e.int_value);
      case ExprKind::kLoopVar: return Tracked(e.var) ? kAnyMultiple : 1;
      case ExprKind::kIndex: {
        const int64_t a = Multiple(e.a);
        switch (e.index_op) {
          case IndexOp::kAdd: return std::min(a, Multiple(e.b));
          case IndexOp::kMul: {
            const int64_t b = Multiple(e.b);
            return a >= kAnyMultiple / b ? kAnyMultiple : a * b;
          }
          case IndexOp::kDiv: return a == kAnyMultiple ? kAnyMultiple : 1;
          case IndexOp::kMod:
            return IsConst(e.b) ? std::min(a, LowestPowerOfTwo(kernel_.exprs[e.b].int_value)) : 1;
        }
        return 1;
      }
      default: return 1;
    }
  }

 private:
  bool Tracked(int32_t var) const {
    return var >= 0 && (var == mm_.i_var || var == mm_.k_var || var == mm_.j_var);
  }
  bool IsConst(int32_t id) const { return id >= 0 && kernel_.exprs[id].kind == ExprKind::kConst; }
  bool UsesTracked(int32_t id) const {
    if (id < 0) return false;
    const Expr& e = kernel_.exprs[id];
    if (e.kind == ExprKind::kLoopVar) return Tracked(e.var);
    return UsesTracked(e.a) || UsesTracked(e.b) || UsesTracked(e.c);
  }

  const Kernel& kernel_;
  const MatmulPattern& mm_;
};

// cast<acc>(load(buffer, index)), or the load when it has the accumulator's
// type, of an f16 or bf16 buffer (or f32 with `tf32`): the load.
const Expr* WidenedLoad(const kernel::Program& program, const Kernel& kernel, int32_t id,
                        DType acc, bool tf32) {
  const Expr& e = kernel.exprs[id];
  if (e.dtype != acc) return nullptr;
  const Expr& load = e.kind == ExprKind::kCast ? kernel.exprs[e.a] : e;
  const bool half = load.dtype == DType::kF16 || load.dtype == DType::kBF16;
  if (load.kind != ExprKind::kLoad || !(half || (tf32 && load.dtype == DType::kF32)) ||
      program.buffers[load.buffer].type.dtype != load.dtype) {
    return nullptr;
  }
  return &load;
}

}  // namespace

std::optional<MmaPlan> PlanMmaMatmul(const kernel::Program& program, const Kernel& kernel,
                                     const MatmulPattern& mm, bool tf32) {
  if ((mm.acc_dtype != DType::kF32 && mm.acc_dtype != DType::kF64) || mm.lhs < 0 || mm.rhs < 0) {
    return std::nullopt;
  }
  const Expr* a = WidenedLoad(program, kernel, mm.lhs, mm.acc_dtype, tf32);
  const Expr* b = WidenedLoad(program, kernel, mm.rhs, mm.acc_dtype, tf32);
  if (a == nullptr || b == nullptr || a->dtype != b->dtype) return std::nullopt;
  const int64_t chunk = MmaChunkElements(a->dtype);
  auto chunked = [&](int64_t elements) { return elements % chunk == 0; };
  const IndexAnalysis analysis(kernel, mm);
  const std::optional<Terms> ta = analysis.Linear(a->a);
  const std::optional<Terms> tb = analysis.Linear(b->a);
  if (!ta || !tb || ta->j != 0 || tb->i != 0 || ta->i < 0 || tb->k < 0 || tb->j < 0) {
    return std::nullopt;
  }
  if (analysis.Multiple(a->a) < chunk || analysis.Multiple(b->a) < chunk) {
    return std::nullopt;
  }
  MmaPlan plan;
  plan.dtype = a->dtype;
  // The left operand: k contiguous, whole chunks along k.
  if (ta->k != 1 || !chunked(mm.k) || !chunked(ta->i)) return std::nullopt;
  plan.a = {a->buffer, a->a, ta->i, true};
  // The right operand: columns contiguous, or k contiguous.
  if (tb->j == 1 && chunked(mm.n) && chunked(tb->k)) {
    plan.b = {b->buffer, b->a, tb->k, false};
  } else if (tb->k == 1 && chunked(mm.k) && chunked(tb->j)) {
    plan.b = {b->buffer, b->a, tb->j, true};
  } else {
    return std::nullopt;
  }
  return plan;
}

}  // namespace rk::compiler::cuda
