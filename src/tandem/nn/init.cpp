// nn.init: composites of the random and copy ops, run under no_grad so parameters that
// require grad can be filled in place. orthogonal_ adds one op of its own (the Q factor).
#include "tandem/nn/init.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::init {
namespace {

void check_defined(const Tensor& t, const char* op) {
  TANDEM_CHECK(t.defined(), ValueError, op, ": expected a tensor, got an undefined one");
}

void check_float(const Tensor& t, const char* op) {
  check_defined(t, op);
  TANDEM_CHECK(is_floating(t.dtype()), TypeError, op,
               ": expected a floating point tensor, got dtype ", dtype_name(t.dtype()));
}

// Draws in the tensor's own dtype (float16 / bfloat16 draws are made exact by the op).
const Tensor& fill_uniform(const Tensor& t, double lo, double hi) {
  GradModeGuard g(false);
  if (t.numel() == 0) return t;
  return copy_(t, uniform(lo, hi, t.shape(), t.dtype()));
}

const Tensor& fill_normal(const Tensor& t, double mean, double std) {
  GradModeGuard g(false);
  if (t.numel() == 0) return t;
  return copy_(t, normal(mean, std, t.shape(), t.dtype()));
}

int64_t correct_fan(const Tensor& t, const std::string& mode, const char* op) {
  TANDEM_CHECK(mode == "fan_in" || mode == "fan_out", ValueError, op, ": mode ", mode,
               " not supported, please use one of fan_in, fan_out");
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  return mode == "fan_in" ? fan_in : fan_out;
}

// --- Householder QR (the Q factor) ---------------------------------------------------------
std::vector<TensorMeta> qr_q_infer(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  const Tensor& a = in[0];
  TANDEM_CHECK(a.dim() == 2, ValueError, "householder_q: expected a 2-D matrix, got ", a.dim(),
               " dims");
  TANDEM_CHECK(a.dtype() == DType::Float64, TypeError,
               "householder_q: expected a float64 matrix, got ", dtype_name(a.dtype()));
  TANDEM_CHECK(a.shape()[0] >= a.shape()[1], ValueError,
               "householder_q: expected rows >= cols, got ", a.shape()[0], " x ", a.shape()[1],
               " (transpose a wide matrix first)");
  return {{a.shape(), DType::Float64}};
}

void qr_q_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs&) {
  Tensor a = in[0].contiguous();
  const int64_t m = a.shape()[0], n = a.shape()[1];
  if (m * n == 0) return;
  const double* ap = a.data<double>();
  // Column-major working copies: column j of A is A[j*m .. j*m+m).
  std::vector<double> A(static_cast<size_t>(m * n)), V(static_cast<size_t>(m * n), 0.0);
  std::vector<double> diag(static_cast<size_t>(n), 0.0);
  std::vector<bool> has_v(static_cast<size_t>(n), false);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) A[size_t(j * m + i)] = ap[i * n + j];
  for (int64_t k = 0; k < n; ++k) {
    const double* x = &A[size_t(k * m)];
    double nrm = 0;
    for (int64_t i = k; i < m; ++i) nrm += x[i] * x[i];
    nrm = std::sqrt(nrm);
    // The reflector sends x to alpha e_k; alpha's sign opposes x[k] to avoid cancellation.
    const double alpha = x[k] >= 0 ? -nrm : nrm;
    double* v = &V[size_t(k * m)];
    double vn = 0;
    for (int64_t i = k; i < m; ++i) v[i] = x[i];
    v[k] -= alpha;
    for (int64_t i = k; i < m; ++i) vn += v[i] * v[i];
    vn = std::sqrt(vn);
    if (vn == 0) {  // x is already zero below and on the diagonal: H = I
      diag[size_t(k)] = x[k];
      continue;
    }
    for (int64_t i = k; i < m; ++i) v[i] /= vn;
    has_v[size_t(k)] = true;
    // Serial: one parallel region per column costs more in barriers than it saves here.
    for (int64_t j = k; j < n; ++j) {
      double* c = &A[size_t(j * m)];
      double s = 0;
      for (int64_t i = k; i < m; ++i) s += v[i] * c[i];
      for (int64_t i = k; i < m; ++i) c[i] -= 2 * s * v[i];
    }
    diag[size_t(k)] = A[size_t(k * m + k)];
  }
  // Q e_j = H_0 ... H_j e_j: reflectors after j leave e_j unchanged.
  // Columns are independent: one parallel region, no allocation inside it (A is reused).
  double* o = out[0].data<double>();
  std::fill(A.begin(), A.end(), 0.0);
  const int nt = parallel_threads(m * n * n / 2, 1 << 16);
  parallel_region(nt, [&] {
#pragma omp for schedule(dynamic, 4)
    for (int64_t j = 0; j < n; ++j) {
      double* q = &A[size_t(j * m)];
      q[j] = 1;
      for (int64_t k = j; k >= 0; --k) {
        if (!has_v[size_t(k)]) continue;
        const double* v = &V[size_t(k * m)];
        double s = 0;
        for (int64_t i = k; i < m; ++i) s += v[i] * q[i];
        for (int64_t i = k; i < m; ++i) q[i] -= 2 * s * v[i];
      }
      // PyTorch's sign correction (Q diag(sign(diag R))); a zero pivot keeps its column.
      const double sgn = diag[size_t(j)] < 0 ? -1.0 : 1.0;
      for (int64_t i = 0; i < m; ++i) o[i * n + j] = sgn * q[i];
    }
  });
}

const OpDef householder_q_op = make_op("householder_q", qr_q_infer, qr_q_kernel);
TANDEM_REGISTER_OP(householder_q_op)
// Only used to draw initial values; a gradient through it is never needed.
TANDEM_NOT_DIFFERENTIABLE(householder_q_op)

}  // namespace

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  check_defined(t, "calculate_fan_in_and_fan_out");
  TANDEM_CHECK(t.dim() >= 2, ValueError,
               "calculate_fan_in_and_fan_out: fan in and fan out can not be computed for a "
               "tensor with fewer than 2 dimensions (got shape ",
               shape_str(t.shape()), ")");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.shape()[size_t(d)];
  return {t.shape()[1] * receptive, t.shape()[0] * receptive};
}

double calculate_gain(const std::string& nl, std::optional<double> param) {
  if (nl == "linear" || nl == "conv1d" || nl == "conv2d" || nl == "conv3d" ||
      nl == "conv_transpose1d" || nl == "conv_transpose2d" || nl == "conv_transpose3d" ||
      nl == "sigmoid")
    return 1.0;
  if (nl == "tanh") return 5.0 / 3;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nl == "selu") return 3.0 / 4;
  throw ValueError("calculate_gain: unsupported nonlinearity '" + nl +
                   "'; use linear, conv1d/2d/3d, conv_transpose1d/2d/3d, sigmoid, tanh, relu, "
                   "leaky_relu or selu");
}

const Tensor& uniform_(const Tensor& t, double a, double b) {
  check_float(t, "uniform_");
  TANDEM_CHECK(a <= b, ValueError, "uniform_: expects a <= b, got a=", a, " b=", b);
  return fill_uniform(t, a, b);
}

const Tensor& normal_(const Tensor& t, double mean, double std) {
  check_float(t, "normal_");
  TANDEM_CHECK(std >= 0, ValueError, "normal_: expects std >= 0, got ", std);
  return fill_normal(t, mean, std);
}

const Tensor& constant_(const Tensor& t, Scalar value) {
  check_defined(t, "constant_");
  GradModeGuard g(false);
  return fill_(t, value);
}
const Tensor& zeros_(const Tensor& t) {
  return constant_(t, Scalar(int64_t(0)));
}
const Tensor& ones_(const Tensor& t) {
  return constant_(t, Scalar(int64_t(1)));
}

const Tensor& eye_(const Tensor& t) {
  check_defined(t, "eye_");
  TANDEM_CHECK(t.dim() == 2, ValueError,
               "eye_: only tensors with 2 dimensions are supported, got shape ",
               shape_str(t.shape()));
  GradModeGuard g(false);
  return copy_(t, eye(t.shape()[0], t.shape()[1], t.dtype()));
}

const Tensor& xavier_uniform_(const Tensor& t, double gain) {
  check_float(t, "xavier_uniform_");
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  if (t.numel() == 0) return t;
  const double std = gain * std::sqrt(2.0 / double(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  return fill_uniform(t, -std::abs(a), std::abs(a));
}

const Tensor& xavier_normal_(const Tensor& t, double gain) {
  check_float(t, "xavier_normal_");
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  if (t.numel() == 0) return t;
  const double std = gain * std::sqrt(2.0 / double(fan_in + fan_out));
  return fill_normal(t, 0, std::abs(std));
}

const Tensor& kaiming_uniform_(const Tensor& t, double a, const std::string& mode,
                               const std::string& nonlinearity) {
  check_float(t, "kaiming_uniform_");
  if (t.numel() == 0) return t;  // PyTorch: a no-op (before the fan is computed)
  const int64_t fan = correct_fan(t, mode, "kaiming_uniform_");
  const double bound = std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(double(fan));
  return fill_uniform(t, -bound, bound);
}

const Tensor& kaiming_normal_(const Tensor& t, double a, const std::string& mode,
                              const std::string& nonlinearity) {
  check_float(t, "kaiming_normal_");
  if (t.numel() == 0) return t;
  const int64_t fan = correct_fan(t, mode, "kaiming_normal_");
  return fill_normal(t, 0, calculate_gain(nonlinearity, a) / std::sqrt(double(fan)));
}

const Tensor& trunc_normal_(const Tensor& t, double mean, double std, double a, double b) {
  check_float(t, "trunc_normal_");
  TANDEM_CHECK(std > 0, ValueError, "trunc_normal_: expects std > 0, got ", std);
  TANDEM_CHECK(a < b, ValueError, "trunc_normal_: expects a < b, got a=", a, " b=", b);
  GradModeGuard g(false);
  if (t.numel() == 0) return t;
  // With u ~ U(2 Phi(alpha) - 1, 2 Phi(beta) - 1), sqrt(2) erfinv(u) is a standard normal
  // truncated to [alpha, beta] (Phi(x) = (1 + erf(x / sqrt 2)) / 2).
  const double lo = std::erf((a - mean) / (std * M_SQRT2));
  const double hi = std::erf((b - mean) / (std * M_SQRT2));
  Tensor u = uniform(lo, hi, t.shape(), DType::Float64);
  Tensor x = add(mul(erfinv(u), scalar_tensor(std * M_SQRT2)), scalar_tensor(mean));
  // erfinv(+-1) is +-inf and rounding can step just outside [a, b]: clamp as PyTorch does.
  return copy_(t, clamp(x, Scalar(a), Scalar(b)));
}

Tensor householder_q(const Tensor& a) {
  return dispatch1(householder_q_op, {a});
}

const Tensor& orthogonal_(const Tensor& t, double gain) {
  check_float(t, "orthogonal_");
  TANDEM_CHECK(t.dim() >= 2, ValueError,
               "orthogonal_: only tensors with 2 or more dimensions are supported, got shape ",
               shape_str(t.shape()));
  GradModeGuard g(false);
  if (t.numel() == 0) return t;
  const int64_t rows = t.shape()[0], cols = t.numel() / rows;
  Tensor flat = normal(0, 1, {rows, cols}, DType::Float64);
  Tensor q =
      rows < cols ? tandem::t(householder_q(tandem::t(flat).contiguous())) : householder_q(flat);
  if (gain != 1) q = mul(q, scalar_tensor(gain));
  return copy_(t, reshape(q, t.shape()));
}

}  // namespace tandem::init
