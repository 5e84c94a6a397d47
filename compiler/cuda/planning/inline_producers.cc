#include "compiler/cuda/planning/inline_producers.h"

#include <algorithm>
#include <map>
#include <optional>

namespace rk::compiler::cuda {

using kernel::Expr;
using kernel::ExprKind;
using kernel::IndexOp;
using kernel::Kernel;
using kernel::Program;
using kernel::Stmt;
using kernel::StmtKind;

namespace {

// Consumers grow by the producer's expression per load: keep it small.
constexpr size_t kMaxProducerExprs = 64;

// sum(coefficient * var) + constant, or nullopt when not of that form.
struct Linear {
  std::map<int32_t, int64_t> coefficients;
  int64_t constant = 0;
  bool operator==(const Linear& o) const {
    return coefficients == o.coefficients && constant == o.constant;
  }
};

std::optional<Linear> LinearForm(const Kernel& k, int32_t id) {
  const Expr& e = k.exprs[id];
  Linear out;
  if (e.kind == ExprKind::kConst && e.dtype == DType::kI64) {
    out.constant = e.int_value;
    return out;
  }
  if (e.kind == ExprKind::kLoopVar) {
    out.coefficients[e.var] = 1;
    return out;
  }
  if (e.kind != ExprKind::kIndex) return std::nullopt;
  std::optional<Linear> a = LinearForm(k, e.a), b = LinearForm(k, e.b);
  if (!a || !b) return std::nullopt;
  if (e.index_op == IndexOp::kAdd) {
    for (const auto& [var, c] : b->coefficients) a->coefficients[var] += c;
    a->constant += b->constant;
    return a;
  }
  if (e.index_op == IndexOp::kMul) {
    if (!a->coefficients.empty() && !b->coefficients.empty()) return std::nullopt;
    const Linear& scaled = a->coefficients.empty() ? *b : *a;
    const int64_t factor = a->coefficients.empty() ? a->constant : b->constant;
    Linear r;
    for (const auto& [var, c] : scaled.coefficients) r.coefficients[var] = c * factor;
    r.constant = scaled.constant * factor;
    return r;
  }
  return std::nullopt;
}

bool IsGraphData(const Program& program, int32_t buffer) {
  const kernel::BufferRole role = program.buffers[buffer].role;
  return role == kernel::BufferRole::kInput || role == kernel::BufferRole::kConstant;
}

struct Producer {
  std::vector<const Stmt*> loops;
  const Stmt* store = nullptr;
  Linear flat;  // the nest's row-major flat index
};

std::optional<Producer> MatchProducer(const Program& program, const Kernel& k) {
  if (!k.locals.empty() || !k.accumulators.empty() || k.writes.size() != 1 ||
      k.exprs.size() > kMaxProducerExprs || k.body.size() != 1) {
    return std::nullopt;
  }
  Producer p;
  const Stmt* s = &k.body[0];
  while (s->kind == StmtKind::kLoop && s->body.size() == 1) {
    p.loops.push_back(s);
    s = &s->body[0];
  }
  if (s->kind != StmtKind::kStore || p.loops.empty()) return std::nullopt;
  // f32/f64 temps only: there the store does not round (f16/bf16 values are
  // computed in f32 and rounded when stored), so recomputing is exact.
  const kernel::Buffer& temp = program.buffers[s->buffer];
  if (temp.role != kernel::BufferRole::kTemp ||
      (temp.type.dtype != DType::kF32 && temp.type.dtype != DType::kF64) ||
      k.exprs[s->value].dtype != temp.type.dtype) {
    return std::nullopt;
  }
  for (int32_t r : k.reads) {
    if (!IsGraphData(program, r)) return std::nullopt;
  }
  p.store = s;
  int64_t stride = 1;
  for (size_t i = p.loops.size(); i-- > 0;) {
    p.flat.coefficients[p.loops[i]->var] = stride;
    stride *= p.loops[i]->extent;
  }
  if (stride != program.buffers[s->buffer].type.num_elements()) return std::nullopt;
  std::optional<Linear> index = LinearForm(k, s->index);
  if (!index || !(*index == p.flat)) return std::nullopt;
  return p;
}

int32_t Add(Kernel& k, Expr e) {
  k.exprs.push_back(e);
  return static_cast<int32_t>(k.exprs.size() - 1);
}

int32_t IndexConst(Kernel& k, int64_t v) {
  Expr e;
  e.kind = ExprKind::kConst;
  e.dtype = DType::kI64;
  e.int_value = v;
  return Add(k, e);
}

int32_t IndexOpOf(Kernel& k, IndexOp op, int32_t a, int32_t b) {
  Expr e;
  e.kind = ExprKind::kIndex;
  e.dtype = DType::kI64;
  e.index_op = op;
  e.a = a;
  e.b = b;
  return Add(k, e);
}

// Copies producer expression `id` into `consumer`, its loop variables being
// the element `flat_index` (a consumer expr) decomposes into.
class Copier {
 public:
  Copier(const Kernel& producer, const Producer& p, Kernel& consumer, int32_t flat_index)
      : producer_(producer), p_(p), consumer_(consumer), flat_index_(flat_index) {}

  int32_t Copy(int32_t id) {
    if (id < 0) return -1;
    const Expr& e = producer_.exprs[id];
    if (e.kind == ExprKind::kIndex) {
      std::optional<Linear> form = LinearForm(producer_, id);
      if (form && *form == p_.flat) return flat_index_;
    }
    if (e.kind == ExprKind::kLoopVar) return Var(e.var);
    Expr copy = e;
    copy.a = Copy(e.a);
    copy.b = Copy(e.b);
    copy.c = Copy(e.c);
    return Add(consumer_, copy);
  }

 private:
  int32_t Var(int32_t var) {
    int64_t stride = 1;
    for (size_t i = p_.loops.size(); i-- > 0;) {
      const Stmt& loop = *p_.loops[i];
      if (loop.var == var) {
        int32_t v = flat_index_;
        if (stride > 1) v = IndexOpOf(consumer_, IndexOp::kDiv, v, IndexConst(consumer_, stride));
        if (i > 0) v = IndexOpOf(consumer_, IndexOp::kMod, v, IndexConst(consumer_, loop.extent));
        return v;
      }
      stride *= loop.extent;
    }
    return IndexConst(consumer_, 0);  // not a loop of the nest: cannot happen
  }

  const Kernel& producer_;
  const Producer& p_;
  Kernel& consumer_;
  int32_t flat_index_;
};

void InlineInto(const Kernel& producer, const Producer& p, Kernel& consumer) {
  const int32_t temp = p.store->buffer;
  const size_t original = consumer.exprs.size();
  for (size_t id = 0; id < original; ++id) {
    if (consumer.exprs[id].kind != ExprKind::kLoad || consumer.exprs[id].buffer != temp) continue;
    Copier copier(producer, p, consumer, consumer.exprs[id].a);
    const int32_t value = copier.Copy(p.store->value);
    consumer.exprs[id] = consumer.exprs[value];
  }
  std::vector<int32_t> reads;
  for (int32_t r : consumer.reads) {
    if (r != temp) reads.push_back(r);
  }
  reads.insert(reads.end(), producer.reads.begin(), producer.reads.end());
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  consumer.reads = std::move(reads);
}

bool Reads(const Kernel& k, int32_t buffer) {
  return std::binary_search(k.reads.begin(), k.reads.end(), buffer);
}

bool OverlapsTemp(const Program& program, int32_t a, int32_t b) {
  const kernel::Buffer& x = program.buffers[a];
  const kernel::Buffer& y = program.buffers[b];
  if (x.role != kernel::BufferRole::kTemp || y.role != kernel::BufferRole::kTemp) return a == b;
  return x.arena_offset < y.arena_offset + std::max<int64_t>(y.type.byte_size(), 1) &&
         y.arena_offset < x.arena_offset + std::max<int64_t>(x.type.byte_size(), 1);
}

}  // namespace

bool InlineElementwiseProducers(Program& program) {
  bool changed = false;
  for (size_t k = 0; k < program.kernels.size();) {
    std::optional<Producer> p = MatchProducer(program, program.kernels[k]);
    if (!p) {
      ++k;
      continue;
    }
    const int32_t temp = p->store->buffer;
    // Readers up to the temp's next writer (or a kernel writing bytes it
    // shares in the arena); none may read it through another buffer.
    std::vector<size_t> readers;
    bool ok = true;
    for (size_t c = k + 1; c < program.kernels.size() && ok; ++c) {
      const Kernel& consumer = program.kernels[c];
      for (int32_t r : consumer.reads) {
        if (r != temp && OverlapsTemp(program, r, temp)) ok = false;
      }
      if (Reads(consumer, temp)) readers.push_back(c);
      const bool overwritten = std::any_of(consumer.writes.begin(), consumer.writes.end(),
                                           [&](int32_t w) { return OverlapsTemp(program, w, temp); });
      if (overwritten) break;
    }
    if (!ok || readers.empty()) {
      ++k;
      continue;
    }
    const Kernel producer = program.kernels[k];
    for (size_t c : readers) InlineInto(producer, *p, program.kernels[c]);
    // Nothing reads the temp any more (a later writer starts a new value).
    program.kernels.erase(program.kernels.begin() + static_cast<std::ptrdiff_t>(k));
    changed = true;
  }
  return changed;
}

}  // namespace rk::compiler::cuda
