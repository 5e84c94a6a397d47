#include "compiler/kernel/kernel_key.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace rk::compiler::kernel {
namespace {

// A new field changes a struct's size: add it to the key below, then here.
static_assert(sizeof(Expr) == 56, "Expr changed: add the new field to KernelKey");
static_assert(sizeof(Stmt) == 72, "Stmt changed: add the new field to KernelKey");
static_assert(sizeof(Kernel) == 216, "Kernel changed: add the new field to KernelKey");

class KeyWriter {
 public:
  KeyWriter(const Program& program, const Kernel& kernel) : program_(program), kernel_(kernel) {
    arguments_ = kernel.reads;
    arguments_.insert(arguments_.end(), kernel.writes.begin(), kernel.writes.end());
    std::sort(arguments_.begin(), arguments_.end());
    arguments_.erase(std::unique(arguments_.begin(), arguments_.end()), arguments_.end());
  }

  std::string Write() {
    Int(arguments_.size());
    for (int32_t b : arguments_) BufferType(b);
    Int(kernel_.locals.size());
    for (int32_t b : kernel_.locals) BufferType(b);
    Ints(kernel_.reads);
    Ints(kernel_.writes);
    Int(kernel_.accumulators.size());
    for (DType d : kernel_.accumulators) Int(static_cast<int>(d));
    Int(kernel_.num_vars);
    Int(kernel_.exprs.size());
    for (const Expr& e : kernel_.exprs) ExprFields(e);
    Stmts(kernel_.body);
    return std::move(out_);
  }

 private:
  void Int(int64_t v) { absl::StrAppend(&out_, v, ","); }
  // Argument position, or local position, or (never expected) the raw id.
  void BufferRef(int32_t b) {
    if (b < 0) return Int(-1);
    auto arg = std::lower_bound(arguments_.begin(), arguments_.end(), b);
    if (arg != arguments_.end() && *arg == b) {
      return absl::StrAppend(&out_, "a", arg - arguments_.begin(), ",");
    }
    auto local = std::find(kernel_.locals.begin(), kernel_.locals.end(), b);
    if (local != kernel_.locals.end()) {
      return absl::StrAppend(&out_, "l", local - kernel_.locals.begin(), ",");
    }
    absl::StrAppend(&out_, "b", b, ",");
  }
  void Ints(const std::vector<int32_t>& buffers) {
    Int(buffers.size());
    for (int32_t b : buffers) BufferRef(b);
  }
  void BufferType(int32_t b) {
    const Buffer& buffer = program_.buffers[b];
    Int(static_cast<int>(buffer.type.dtype));
    Int(buffer.type.num_elements());
  }
  void ExprFields(const Expr& e) {
    uint64_t bits = 0;
    std::memcpy(&bits, &e.float_value, sizeof(bits));
    absl::StrAppend(&out_, "e", static_cast<int>(e.kind), ",", static_cast<int>(e.dtype), ",",
                    static_cast<int>(e.op), ",", static_cast<int>(e.index_op), ",", e.a, ",", e.b,
                    ",", e.c, ",", e.int_value, ",", bits, ",");
    BufferRef(e.buffer);
    Int(e.var);
    Int(e.acc);
  }
  void Stmts(const std::vector<Stmt>& body) {
    absl::StrAppend(&out_, "{", body.size(), ",");
    for (const Stmt& s : body) {
      absl::StrAppend(&out_, "s", static_cast<int>(s.kind), ",", s.var, ",", s.extent, ",",
                      s.parallel ? 1 : 0, ",");
      BufferRef(s.buffer);
      absl::StrAppend(&out_, s.index, ",", s.value, ",", s.acc, ",", static_cast<int>(s.combine),
                      ",", static_cast<int>(s.order), ",");
      Stmts(s.body);
    }
    out_ += "}";
  }

  const Program& program_;
  const Kernel& kernel_;
  std::vector<int32_t> arguments_;
  std::string out_;
};

}  // namespace

std::string KernelKey(const Program& program, const Kernel& kernel) {
  return KeyWriter(program, kernel).Write();
}

}  // namespace rk::compiler::kernel
