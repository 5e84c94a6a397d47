// Reference kernel for batched matmul: [..., M, K] x [..., K, N] -> [..., M, N]
// with NumPy broadcasting of the batch dims. Floats accumulate in double over
// k in increasing order and round once; integers accumulate in wrapping int64.
#include "absl/strings/str_cat.h"
#include "compiler/reference/kernels.h"

namespace rk::compiler::reference_internal {
namespace {

Shape BatchOf(const Shape& s) {
  return Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2));
}

template <typename T, typename MulAdd>
void MatmulLoops(const std::vector<T>& a, const std::vector<T>& b, std::vector<T>& out,
                 absl::Span<const int64_t> a_batch, absl::Span<const int64_t> b_batch, int64_t m,
                 int64_t k, int64_t n, MulAdd mul_add) {
  for (size_t batch = 0; batch < a_batch.size(); ++batch) {
    const T* pa = a.data() + a_batch[batch] * m * k;
    const T* pb = b.data() + b_batch[batch] * k * n;
    T* po = out.data() + batch * m * n;
    for (int64_t i = 0; i < m; ++i) {
      T* row = po + i * n;
      for (int64_t j = 0; j < n; ++j) row[j] = T{0};
      for (int64_t kk = 0; kk < k; ++kk) {
        const T aik = pa[i * k + kk];
        const T* brow = pb + kk * n;
        for (int64_t j = 0; j < n; ++j) row[j] = mul_add(row[j], aik, brow[j]);
      }
    }
  }
}

}  // namespace

absl::StatusOr<HostTensor> EvalMatmul(const Node& node, absl::Span<const HostTensor> operands) {
  if (operands.size() != 2) return absl::InternalError("matmul: expected two operands");
  const HostTensor& a = operands[0];
  const HostTensor& b = operands[1];
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const Shape& so = node.type.shape;
  if (sa.rank() < 2 || sb.rank() < 2 || so.rank() < 2) {
    return absl::InternalError("matmul: operands and result need rank >= 2");
  }
  const int64_t m = sa.dim(sa.rank() - 2), k = sa.dim(sa.rank() - 1), n = sb.dim(sb.rank() - 1);
  if (sb.dim(sb.rank() - 2) != k || so.dim(so.rank() - 2) != m || so.dim(so.rank() - 1) != n) {
    return absl::InternalError(absl::StrCat("matmul: ", sa.ToString(), " x ", sb.ToString(),
                                            " cannot give ", so.ToString()));
  }
  const Shape out_batch = BatchOf(so);
  absl::StatusOr<std::vector<int64_t>> a_batch = BroadcastIndices(BatchOf(sa), out_batch);
  if (!a_batch.ok()) return a_batch.status();
  absl::StatusOr<std::vector<int64_t>> b_batch = BroadcastIndices(BatchOf(sb), out_batch);
  if (!b_batch.ok()) return b_batch.status();
  HostTensor out(node.type);
  if (IsFloat(a.dtype())) {
    std::vector<double> va = ReadDoubles(a), vb = ReadDoubles(b), r(out.num_elements());
    MatmulLoops(va, vb, r, *a_batch, *b_batch, m, k, n,
                [](double acc, double x, double y) { return acc + x * y; });
    WriteDoubles(out, r);
  } else {
    std::vector<int64_t> va = ReadInts(a), vb = ReadInts(b), r(out.num_elements());
    MatmulLoops(va, vb, r, *a_batch, *b_batch, m, k, n, [](int64_t acc, int64_t x, int64_t y) {
      return static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                  static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
    });
    WriteInts(out, r);
  }
  return out;
}

}  // namespace rk::compiler::reference_internal
