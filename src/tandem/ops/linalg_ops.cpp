// The matmul OpDef (batched, broadcasting) and the linear-algebra composites built on it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/gemm.h"
#include "tandem/ops/autocast.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

// Both operands of one dtype, as PyTorch and MindSpore require: promoting (an int64 or uint8
// input into a float32 layer) would silently accept data of the wrong type.
DType matmul_dtype(const Tensor& a, const Tensor& b, const char* op) {
  TANDEM_CHECK(a.dtype() == b.dtype(), TypeError, op,
               ": expected both operands to have the same dtype, got ", dtype_name(a.dtype()),
               " and ", dtype_name(b.dtype()), "; convert one first (e.g. x.float())");
  TANDEM_CHECK(a.dtype() != DType::Bool, TypeError, op, ": not implemented for Bool tensors");
  return a.dtype();
}

std::vector<TensorMeta> matmul_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  const Tensor &a = in[0], &b = in[1];
  TANDEM_CHECK(a.dim() >= 2 && b.dim() >= 2, ValueError,
               "matmul: internal op expects >= 2-D operands");
  int64_t M = a.shape()[a.dim() - 2], K = a.shape().back();
  int64_t K2 = b.shape()[b.dim() - 2], N = b.shape().back();
  TANDEM_CHECK(K == K2, ValueError, "matmul: shapes ", shape_str(a.shape()), " and ",
               shape_str(b.shape()), " don't match: ", K, " != ", K2,
               " (the last dim of the first must equal the second-to-last of the second)");
  Shape ba(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  Shape out = broadcast_shapes(ba, bb, "matmul");
  out.push_back(M);
  out.push_back(N);
  return {{out, matmul_dtype(a, b, "matmul")}};
}

// A matrix operand for gemm: pointer, leading dim and transpose flag, copying when neither
// of the last two dims has unit stride.
struct Panel {
  Tensor t;  // keeps a copy alive
  bool trans;
  int64_t ld;
};

Panel panel_of(const Tensor& x) {
  int64_t r = x.dim() - 2;
  int64_t s0 = x.strides()[r], s1 = x.strides()[r + 1];
  int64_t rows = x.shape()[r], cols = x.shape()[r + 1];
  if ((s1 == 1 || cols == 1) && (s0 >= cols || rows == 1))
    return {x, false, std::max<int64_t>(s0, cols)};
  if ((s0 == 1 || rows == 1) && (s1 >= rows || cols == 1))
    return {x, true, std::max<int64_t>(s1, rows)};
  Tensor c = x.contiguous();
  return {c, false, cols};
}

// bf16 x bf16 -> bf16 on oneDNN (autocast's matmul): per batch matrix, on the operands'
// own panels. False when oneDNN has no fast kernel for a shape (then: the float32 path).
bool matmul_bf16(const Tensor& a0, const Tensor& b0, const Tensor& c) {
  if (!c.is_contiguous()) return false;
  int64_t M = a0.shape()[a0.dim() - 2], K = a0.shape().back(), N = b0.shape().back();
  Shape batch(c.shape().begin(), c.shape().end() - 2);
  Shape sa = batch, sb = batch;
  sa.insert(sa.end(), {M, K});
  sb.insert(sb.end(), {K, N});
  Tensor a = expand(a0, sa), b = expand(b0, sb);
  Panel pa = panel_of(a), pb = panel_of(b);
  int64_t nb = numel_of(batch);
  std::vector<int64_t> idx(batch.size(), 0);
  for (int64_t i = 0; i < nb; ++i) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      oa += idx[d] * pa.t.strides()[d];
      ob += idx[d] * pb.t.strides()[d];
    }
    const char* ap = static_cast<const char*>(pa.t.data_ptr()) + oa * 2;
    const char* bp = static_cast<const char*>(pb.t.data_ptr()) + ob * 2;
    char* cp = static_cast<char*>(c.data_ptr()) + i * M * N * 2;
    if (!gemm_bf16(pa.trans, pb.trans, M, N, K, ap, pa.ld, bp, pb.ld, cp, N)) {
      TANDEM_CHECK(i == 0, Error, "internal: bf16 matmul changed kernels within a batch");
      return false;
    }
    for (size_t d = batch.size(); d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  return true;
}

void matmul_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                   const Attrs&) {
  Tensor out0 = out[0];
  DType dt = out0.dtype();
  if (dt == DType::BFloat16 && in[0].dtype() == dt && in[1].dtype() == dt &&
      matmul_bf16(in[0], in[1], out0))
    return;
  DType kt = (dt == DType::Float16 || dt == DType::BFloat16) ? DType::Float32 : dt;
  Tensor a = in[0].dtype() == kt ? in[0] : to_dtype(in[0], kt);
  Tensor b = in[1].dtype() == kt ? in[1] : to_dtype(in[1], kt);
  Tensor c = kt == dt ? out0 : Tensor::empty(out0.shape(), kt);
  int64_t M = a.shape()[a.dim() - 2], K = a.shape().back(), N = b.shape().back();
  Shape batch(c.shape().begin(), c.shape().end() - 2);
  Shape sa = batch, sb = batch;
  sa.insert(sa.end(), {M, K});
  sb.insert(sb.end(), {K, N});
  a = expand(a, sa);
  b = expand(b, sb);
  // Element offsets of each batch matrix, from the (possibly 0) batch strides.
  int64_t nb = numel_of(batch);
  Panel pa = panel_of(a), pb = panel_of(b);
  size_t isz = itemsize(kt);
  // A dense batch of rows against one shared matrix ([B..., M, K] @ [K, N], a linear layer
  // on a sequence) is one GEMM of B*M rows: one packing of b instead of one per batch.
  bool shared_b = nb > 1 && a.is_contiguous();
  for (size_t d = 0; d < batch.size() && shared_b; ++d) shared_b = pb.t.strides()[d] == 0;
  if (shared_b) {
    gemm(kt, false, pb.trans, nb * M, N, K, 1.0, a.data_ptr(), K, pb.t.data_ptr(), pb.ld, 0.0,
         c.data_ptr(), N);
    if (!c.same(out0)) copy_into(out0, c);
    return;
  }
  // Batch matrix i, from its index digits (so threads can start anywhere in the batch).
  auto one = [&](int64_t i) {
    int64_t oa = 0, ob = 0;
    for (size_t d = batch.size(), rem = size_t(i); d-- > 0;) {
      const int64_t digit = int64_t(rem % size_t(batch[d]));
      rem /= size_t(batch[d]);
      oa += digit * pa.t.strides()[d];
      ob += digit * pb.t.strides()[d];
    }
    const char* ap = static_cast<const char*>(pa.t.data_ptr()) + oa * int64_t(isz);
    const char* bp = static_cast<const char*>(pb.t.data_ptr()) + ob * int64_t(isz);
    char* cp = static_cast<char*>(c.data_ptr()) + i * M * N * int64_t(isz);
    gemm(kt, pa.trans, pb.trans, M, N, K, 1.0, ap, pa.ld, bp, pb.ld, 0.0, cp, N);
  };
  // Many tiny products (attention's heads times batch) run side by side on the threads;
  // larger ones parallelize inside gemm.
  const int nt = kt == DType::Float32 && is_tiny_gemm(M, N, K)
                     ? parallel_threads(nb * M * N * std::max<int64_t>(K, 1), 1 << 14)
                     : 1;
  if (nt > 1) {
    parallel_region(nt, [&] {
#pragma omp for schedule(static)
      for (int64_t i = 0; i < nb; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < nb; ++i) one(i);
  }
  if (!c.same(out0)) copy_into(out0, c);
}

const OpDef matmul_op = [] {
  OpDef op;
  op.name = "matmul";
  op.infer = matmul_infer;
  op.kernel = matmul_kernel;
  return op;
}();
TANDEM_REGISTER_OP(matmul_op)

// beta * input + alpha * p. With beta == 0 the input only contributes its shape and dtype
// (PyTorch: nan / inf in it are not propagated), so it is replaced by zeros.
Tensor add_scaled_product(const Tensor& input, Tensor p, Scalar beta, Scalar alpha) {
  // add's rule (PyTorch's alpha_check) for both factors: a float would promote an integer
  // product to float32 or be truncated.
  const DType rt = promote_types(input.dtype(), p.dtype());
  TANDEM_CHECK(is_floating(rt) || (!alpha.is_float() && !beta.is_float()), TypeError,
               "addmm: for integral input tensors, beta and alpha must not be floating point "
               "numbers (got beta=",
               beta.to_double(), ", alpha=", alpha.to_double(), " with ", dtype_name(rt), ")");
  // Both must fit the type the product is scaled in (float32 for 16-bit floats), as torch
  // checks: alpha=1e300 on float32 raises rather than giving inf.
  check_scalar_fits(alpha, opmath_dtype(rt), "addmm");
  check_scalar_fits(beta, opmath_dtype(rt), "addmm");
  // input broadcasts to the product's shape, never the product to input's (torch's rule: the
  // result has the product's shape).
  TANDEM_CHECK(broadcast_shapes(input.shape(), p.shape(), "addmm") == p.shape(), ValueError,
               "addmm: input of shape ", shape_str(input.shape()),
               " cannot be broadcast to the product's shape ", shape_str(p.shape()));
  if (alpha.to_double() != 1.0) p = mul(p, scalar_tensor(alpha));
  if (beta.to_double() == 0.0) return add(p, zeros(input.shape(), input.dtype()));
  return add(p, input, beta);
}

// d(a @ b): ga = g @ b^T, gb = a^T @ g (batch broadcasting is summed away by the engine).
std::vector<Tensor> matmul_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  const Tensor &a = c.inputs[0], &b = c.inputs[1];
  Tensor gb;
  if (c.needs_grad[1]) {
    if (b.dim() == 2 && a.dim() > 2) {
      // b shared by every batch matrix: its gradient is one GEMM over all rows, not a
      // batched product summed away afterwards.
      const int64_t K = a.shape().back(), N = b.shape().back();
      // rows counted, not inferred: reshape(-1, 0) is ambiguous when K or N is 0
      const int64_t rows = numel_of(Shape(a.shape().begin(), a.shape().end() - 1));
      gb = matmul(t(reshape(a, {rows, K})), reshape(g[0], {rows, N}));
    } else {
      gb = matmul(transpose(a, -1, -2), g[0]);
    }
  }
  return {c.needs_grad[0] ? matmul(g[0], transpose(b, -1, -2)) : Tensor(), gb};
}
TANDEM_DEFINE_VJP(matmul_op, matmul_vjp)

}  // namespace

namespace {
Tensor matmul_nocast(const Tensor& a, const Tensor& b);
}  // namespace

// matmul, mm and bmm are on autocast's lower-precision list; mv and dot are not (PyTorch's
// CPU lists), so they call the uncast form.
Tensor matmul(const Tensor& a, const Tensor& b) {
  return matmul_nocast(autocast_lower(a), autocast_lower(b));
}

namespace {
Tensor matmul_nocast(const Tensor& a, const Tensor& b) {
  TANDEM_CHECK(a.dim() > 0 && b.dim() > 0, ValueError,
               "matmul: both arguments need at least 1 dimension, got ", a.dim(), "-d and ",
               b.dim(), "-d");
  // Checked here, not in the OpDef, so messages name the user's shapes rather than the
  // promoted 2-D ones.
  int64_t K = a.shape().back(), K2 = b.dim() == 1 ? b.shape()[0] : b.shape()[b.dim() - 2];
  TANDEM_CHECK(
      K == K2, ValueError, "matmul: shapes ", shape_str(a.shape()), " and ", shape_str(b.shape()),
      " don't match: ", K, " != ", K2, " (the last dim of the first must equal ",
      b.dim() == 1 ? "the size of the 1-D second" : "the second-to-last of the second", ")");
  if (a.dim() > 2 && b.dim() > 2) {
    Shape ba(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
    for (size_t i = 1; i <= std::min(ba.size(), bb.size()); ++i) {
      int64_t da = ba[ba.size() - i], db = bb[bb.size() - i];
      TANDEM_CHECK(da == db || da == 1 || db == 1, ValueError, "matmul: shapes ",
                   shape_str(a.shape()), " and ", shape_str(b.shape()),
                   " have batch dims that cannot be broadcast: ", da, " vs ", db);
    }
  }
  Tensor x = a.dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor y = b.dim() == 1 ? unsqueeze(b, 1) : b;
  Tensor r = dispatch1(matmul_op, {x, y});
  if (a.dim() == 1) r = squeeze(r, std::vector<int64_t>{-2});
  if (b.dim() == 1) r = squeeze(r, std::vector<int64_t>{-1});
  return r;
}
}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  TANDEM_CHECK(a.dim() == 2 && b.dim() == 2, ValueError, "mm: expects 2-D tensors, got ", a.dim(),
               "-d and ", b.dim(), "-d");
  return matmul(a, b);
}
Tensor bmm(const Tensor& a, const Tensor& b) {
  TANDEM_CHECK(a.dim() == 3 && b.dim() == 3, ValueError, "bmm: expects 3-D tensors, got ", a.dim(),
               "-d and ", b.dim(), "-d");
  TANDEM_CHECK(a.shape()[0] == b.shape()[0], ValueError, "bmm: batch sizes differ: ", a.shape()[0],
               " vs ", b.shape()[0]);
  return matmul(a, b);
}
Tensor mv(const Tensor& a, const Tensor& v) {
  TANDEM_CHECK(a.dim() == 2 && v.dim() == 1, ValueError,
               "mv: expects a 2-D matrix and a 1-D vector, got ", a.dim(), "-d and ", v.dim(),
               "-d");
  return matmul_nocast(a, v);
}
Tensor dot(const Tensor& a, const Tensor& b) {
  TANDEM_CHECK(a.dim() == 1 && b.dim() == 1, ValueError, "dot: expects 1-D tensors, got ", a.dim(),
               "-d and ", b.dim(), "-d");
  return matmul_nocast(a, b);
}
Tensor outer(const Tensor& a, const Tensor& b) {
  TANDEM_CHECK(a.dim() == 1 && b.dim() == 1, ValueError, "outer: expects 1-D tensors, got ",
               a.dim(), "-d and ", b.dim(), "-d");
  return mul(unsqueeze(a, 1), unsqueeze(b, 0));
}

Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, Scalar beta, Scalar alpha) {
  return add_scaled_product(autocast_lower(input), mm(m1, m2), beta, alpha);
}
Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, Scalar beta, Scalar alpha) {
  return add_scaled_product(autocast_lower(input), bmm(b1, b2), beta, alpha);
}

Tensor linear(const Tensor& x_, const Tensor& weight_, const Tensor& bias_) {
  const Tensor x = autocast_lower(x_), weight = autocast_lower(weight_);
  const Tensor bias = autocast_lower(bias_);
  TANDEM_CHECK(weight.dim() == 2 || weight.dim() == 1, ValueError,
               "linear: weight must be 1-D or 2-D, got shape ", shape_str(weight.shape()));
  TANDEM_CHECK(x.dtype() == weight.dtype(), TypeError, "linear: input (", dtype_name(x.dtype()),
               ") and weight (", dtype_name(weight.dtype()),
               ") must have the same dtype; convert the input first (e.g. x.float())");
  // torch adds a bias to a 2-D input with addmm, which needs a matrix weight.
  TANDEM_CHECK(!(bias.defined() && weight.dim() == 1 && x.dim() == 2), ValueError,
               "linear: a 1-D weight takes no bias with a 2-D input (pass a (1, in_features) "
               "weight)");
  Tensor y = matmul(x, weight.dim() == 2 ? t(weight) : weight);
  if (!bias.defined()) return y;
  // The bias is added into the product (torch's addmm): it broadcasts to the output's shape
  // and may not widen it.
  TANDEM_CHECK(broadcast_shapes(y.shape(), bias.shape(), "linear") == y.shape(), ValueError,
               "linear: bias of shape ", shape_str(bias.shape()),
               " does not broadcast to the output's shape ", shape_str(y.shape()),
               " (it should have weight's out_features entries)");
  return add(y, bias);
}

Tensor tensordot(const Tensor& a_, const Tensor& b_, const std::vector<int64_t>& da,
                 const std::vector<int64_t>& db) {
  TANDEM_CHECK(da.size() == db.size(), ValueError,
               "tensordot: both dim lists need the same length (", da.size(), " vs ", db.size(),
               ")");
  TANDEM_CHECK(a_.dtype() == b_.dtype(), TypeError,
               "tensordot: both inputs should have the "
               "same dtype, got ",
               dtype_name(a_.dtype()), " and ", dtype_name(b_.dtype()), "; convert one first");
  Tensor a = a_, b = b_;
  std::vector<int64_t> ca, cb;
  for (size_t i = 0; i < da.size(); ++i) {
    int64_t x = wrap_dim(da[i], a.dim(), "tensordot"), y = wrap_dim(db[i], b.dim(), "tensordot");
    TANDEM_CHECK(std::find(ca.begin(), ca.end(), x) == ca.end() &&
                     std::find(cb.begin(), cb.end(), y) == cb.end(),
                 ValueError, "tensordot: a dim appears twice in the contracted dims");
    // A size-1 dim broadcasts against its partner, as in PyTorch: contracting it is summing
    // the other operand over that dim first.
    if (a.shape()[x] != b.shape()[y]) {
      if (b.shape()[y] == 1)
        a = sum(a, std::vector<int64_t>{x}, true, a.dtype());
      else if (a.shape()[x] == 1)
        b = sum(b, std::vector<int64_t>{y}, true, b.dtype());
    }
    TANDEM_CHECK(a.shape()[x] == b.shape()[y], ValueError,
                 "tensordot: contracted dims differ: ", a.shape()[x], " (dim ", x, " of a) vs ",
                 b.shape()[y], " (dim ", y, " of b)");
    ca.push_back(x);
    cb.push_back(y);
  }
  std::vector<int64_t> fa, fb;
  Shape out;
  int64_t K = 1, M = 1, N = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (std::find(ca.begin(), ca.end(), d) == ca.end()) {
      fa.push_back(d);
      out.push_back(a.shape()[d]);
      M *= a.shape()[d];
    }
  for (int64_t d = 0; d < b.dim(); ++d)
    if (std::find(cb.begin(), cb.end(), d) == cb.end()) {
      fb.push_back(d);
      out.push_back(b.shape()[d]);
      N *= b.shape()[d];
    }
  for (int64_t d : ca) K *= a.shape()[d];
  std::vector<int64_t> pa = fa, pb = cb;
  pa.insert(pa.end(), ca.begin(), ca.end());
  pb.insert(pb.end(), fb.begin(), fb.end());
  Tensor am = reshape(permute(a, pa), {M, K}), bm = reshape(permute(b, pb), {K, N});
  return reshape(matmul(am, bm), out);
}

Tensor trace(const Tensor& x_) {
  const Tensor x = autocast_fp32(x_);
  TANDEM_CHECK(x.dim() == 2, ValueError, "trace: expects a 2-D matrix, got ", x.dim(), "-d");
  return sum(diagonal(x, 0, 0, 1));
}

Tensor cross(const Tensor& a, const Tensor& b, int64_t dim) {
  Shape s = broadcast_shapes(a.shape(), b.shape(), "cross");
  Tensor x = expand(a, s), y = expand(b, s);
  int64_t d = wrap_dim(dim, int64_t(s.size()), "cross");
  TANDEM_CHECK(s[d] == 3, ValueError, "cross: dimension ", d, " must have size 3, got ", s[d]);
  // Only the batch dims broadcast, as in torch: both operands hold 3-vectors along d.
  if (a.dim() == b.dim())
    TANDEM_CHECK(a.shape()[size_t(d)] == 3 && b.shape()[size_t(d)] == 3, ValueError,
                 "cross: inputs dimension ", d, " must have length 3, got ", a.shape()[size_t(d)],
                 " and ", b.shape()[size_t(d)]);
  auto c = [&](const Tensor& t, int64_t i) { return select(t, d, i); };
  Tensor r0 = sub(mul(c(x, 1), c(y, 2)), mul(c(x, 2), c(y, 1)));
  Tensor r1 = sub(mul(c(x, 2), c(y, 0)), mul(c(x, 0), c(y, 2)));
  Tensor r2 = sub(mul(c(x, 0), c(y, 1)), mul(c(x, 1), c(y, 0)));
  // stack, not copies into an empty result: autograd does not record writes into a view of a
  // tensor that does not require grad, so the copies cut the graph (no gradient at all).
  return stack({r0, r1, r2}, d);
}

Tensor cdist(const Tensor& x1_, const Tensor& x2_, double p) {
  const Tensor x1 = autocast_fp32(x1_), x2 = autocast_fp32(x2_);
  TANDEM_CHECK(x1.dim() >= 2 && x2.dim() >= 2, ValueError, "cdist: expects at least 2-D inputs");
  TANDEM_CHECK(x1.shape().back() == x2.shape().back(), ValueError,
               "cdist: X1 and X2 must have the same number of columns: ", x1.shape().back(), " vs ",
               x2.shape().back());
  TANDEM_CHECK(p >= 0, ValueError, "cdist: p must be non-negative, got ", p);
  Tensor d = sub(unsqueeze(x1, -2), unsqueeze(x2, -3));  // (.., P, R, M)
  return norm(d, p, std::vector<int64_t>{-1}, false);
}

namespace {

std::vector<TensorMeta> inv_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  const Tensor& x = in[0];
  TANDEM_CHECK(x.dim() >= 2 && x.shape()[x.dim() - 1] == x.shape()[x.dim() - 2], ValueError,
               "inv: expects square matrices (..., n, n), got ", shape_str(x.shape()));
  TANDEM_CHECK(is_floating(x.dtype()), TypeError, "inv: expects a floating point tensor, got ",
               dtype_name(x.dtype()));
  return {{x.shape(), x.dtype()}};
}

// Gauss-Jordan elimination with partial pivoting in float64, one matrix of the batch at a
// time (the matrices users invert are small; a blocked LU would be the step up). Each row is
// reduced by the multiplier m[i][col] / pivot against the unscaled pivot row, as LU does, so
// a row equal to the pivot row cancels to exact zeros and a singular matrix is reported
// instead of inverted into huge values.
void invert_f64(double* m, double* r, int64_t n) {
  // A matrix holding NaN or inf has no meaningful inverse: all NaN (any elimination order
  // would spread NaN through it), rather than a singular-matrix error or a partial result.
  for (int64_t i = 0; i < n * n; ++i)
    if (!std::isfinite(m[i])) {
      std::fill(r, r + n * n, std::numeric_limits<double>::quiet_NaN());
      return;
    }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) r[i * n + j] = i == j ? 1.0 : 0.0;
  for (int64_t col = 0; col < n; ++col) {
    int64_t piv = col;
    for (int64_t i = col + 1; i < n; ++i)
      if (std::fabs(m[i * n + col]) > std::fabs(m[piv * n + col])) piv = i;
    TANDEM_CHECK(m[piv * n + col] != 0.0, ValueError, "inv: the matrix is singular (pivot ", col,
                 " is zero); it has no inverse");
    if (piv != col)
      for (int64_t j = 0; j < n; ++j) {
        std::swap(m[col * n + j], m[piv * n + j]);
        std::swap(r[col * n + j], r[piv * n + j]);
      }
    const double d = m[col * n + col];
    for (int64_t i = 0; i < n; ++i) {
      if (i == col) continue;
      double f = m[i * n + col] / d;
      if (f == 0.0) continue;
      for (int64_t j = 0; j < n; ++j) {
        m[i * n + j] -= f * m[col * n + j];
        r[i * n + j] -= f * r[col * n + j];
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      m[col * n + j] /= d;
      r[col * n + j] /= d;
    }
  }
}

void inv_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                const Attrs&) {
  int64_t n = in[0].shape().back();
  Tensor a = to_dtype(in[0], DType::Float64, true).contiguous();
  Tensor r = Tensor::empty(a.shape(), DType::Float64);
  int64_t nb = a.numel() / std::max<int64_t>(n * n, 1);
  for (int64_t bi = 0; bi < nb; ++bi)
    invert_f64(a.data<double>() + bi * n * n, r.data<double>() + bi * n * n, n);
  copy_into(out[0], r);
}

const OpDef inv_op = [] {
  OpDef op;
  op.name = "inv";
  op.infer = inv_infer;
  op.kernel = inv_kernel;
  return op;
}();
TANDEM_REGISTER_OP(inv_op)

// d(A^-1) = -A^-1 dA A^-1, so gA = -Y^T g Y^T with Y = A^-1.
std::vector<Tensor> inv_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  Tensor yt = transpose(c.outputs[0], -1, -2);
  return {neg(matmul(yt, matmul(g[0], yt)))};
}
TANDEM_DEFINE_VJP(inv_op, inv_vjp)

}  // namespace

Tensor inv(const Tensor& x) {
  return dispatch1(inv_op, {autocast_fp32(x)});
}

}  // namespace tandem
