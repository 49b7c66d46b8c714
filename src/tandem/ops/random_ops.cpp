// Random OpDefs. Each draw reserves a block of Philox counters from the global generator;
// element i uses counter (offset + i), so results don't depend on threading.
#include <cmath>
#include <mutex>
#include <numeric>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/philox.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/reduce.h"

namespace tandem {
namespace {

struct Generator {
  std::mutex mu;
  uint64_t seed = 0x5eed;
  uint64_t offset = 0;
};
Generator& gen() {
  static Generator* g = new Generator();
  return *g;
}
// Reserves n counters; returns (seed, first counter).
std::pair<uint64_t, uint64_t> reserve(uint64_t n) {
  Generator& g = gen();
  std::lock_guard<std::mutex> l(g.mu);
  uint64_t off = g.offset;
  g.offset += n;
  return {g.seed, off};
}

enum class Dist { Uniform, Normal, Randint, Bernoulli };

std::vector<TensorMeta> dist_infer(const OpDef& op, const std::vector<Tensor>& in, const Attrs& a) {
  if (!in.empty()) return {{in[0].shape(), in[0].dtype()}};  // bernoulli(p)
  return {{a.get_ints("shape"), a.get_dtype("dtype")}};
}

void dist_kernel(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                 const Attrs& a) {
  Dist d = Dist(reinterpret_cast<intptr_t>(op.data));
  int64_t n = out[0].numel();
  auto [seed, off] = reserve(uint64_t(n));
  Tensor tmp = Tensor::empty(out[0].shape(), DType::Float64);
  double* p = tmp.data<double>();
  double pa = a.get_float_or("a", 0), pb = a.get_float_or("b", 1);
  int64_t lo = a.get_int_or("low", 0);
  uint64_t range = uint64_t(a.get_int_or("high", 1) - lo);
  Tensor probs;
  const double* pp = nullptr;
  if (d == Dist::Bernoulli) {
    probs = to_dtype(in[0], DType::Float64).contiguous();
    pp = probs.data<double>();
  }
  // Uniform draws keep only as many random bits as the output's significand holds, so that
  // converting to float16 / bfloat16 / float32 is exact and rand() never rounds up to 1.
  DType odt = out[0].dtype();
  double ulp_scale = odt == DType::Float16    ? 2048.0
                     : odt == DType::BFloat16 ? 256.0
                     : odt == DType::Float32  ? 16777216.0
                                              : 0.0;
  int nt = parallel_threads(n, 8192);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      auto r = philox4x32(off + uint64_t(i), seed);
      double u = to_unit_double(r[0], r[1]);
      switch (d) {
        case Dist::Uniform:
          if (ulp_scale != 0) u = std::floor(u * ulp_scale) / ulp_scale;
          p[i] = pa + (pb - pa) * u;
          break;
        case Dist::Normal: {
          double u2 = to_unit_double(r[2], r[3]);
          p[i] = pa + pb * std::sqrt(-2.0 * std::log1p(-u)) * std::cos(2.0 * M_PI * u2);
          break;
        }
        case Dist::Randint:
          p[i] = double(lo + int64_t(((uint64_t(r[0]) << 32) | r[1]) % range));
          break;
        case Dist::Bernoulli:
          p[i] = u < pp[i] ? 1.0 : 0.0;
          break;
      }
    }
  });
  if (d == Dist::Randint && out[0].dtype() == DType::Int64) {
    // Large int64 ranges lose precision through double: redo exactly.
    int64_t* q = out[0].data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      auto r = philox4x32(off + uint64_t(i), seed);
      q[i] = lo + int64_t(((uint64_t(r[0]) << 32) | r[1]) % range);
    }
    return;
  }
  copy_into(out[0], tmp);
}

OpDef make_dist(const char* name, Dist d) {
  OpDef op;
  op.name = name;
  op.infer = dist_infer;
  op.kernel = dist_kernel;
  op.data = reinterpret_cast<const void*>(intptr_t(d));
  return op;
}
const OpDef uniform_op = make_dist("uniform", Dist::Uniform);
const OpDef normal_op = make_dist("normal", Dist::Normal);
const OpDef randint_op = make_dist("randint", Dist::Randint);
const OpDef bernoulli_op = make_dist("bernoulli", Dist::Bernoulli);
TANDEM_REGISTER_OP(uniform_op)
TANDEM_REGISTER_OP(normal_op)
TANDEM_REGISTER_OP(randint_op)
TANDEM_REGISTER_OP(bernoulli_op)
TANDEM_STATEFUL(uniform_op)
TANDEM_STATEFUL(normal_op)
TANDEM_STATEFUL(randint_op)
TANDEM_STATEFUL(bernoulli_op)
// Random draws carry no gradient (bernoulli's p included, as in PyTorch).
TANDEM_NOT_DIFFERENTIABLE(uniform_op)
TANDEM_NOT_DIFFERENTIABLE(normal_op)
TANDEM_NOT_DIFFERENTIABLE(randint_op)
TANDEM_NOT_DIFFERENTIABLE(bernoulli_op)

void check_float(DType dt, const char* op) {
  TANDEM_CHECK(is_floating(dt), TypeError, op, ": expected a floating point dtype, got ",
               dtype_name(dt));
}

}  // namespace

void manual_seed(uint64_t seed) {
  Generator& g = gen();
  std::lock_guard<std::mutex> l(g.mu);
  g.seed = seed;
  g.offset = 0;
}
uint64_t initial_seed() {
  Generator& g = gen();
  std::lock_guard<std::mutex> l(g.mu);
  return g.seed;
}
std::pair<uint64_t, uint64_t> get_rng_state() {
  Generator& g = gen();
  std::lock_guard<std::mutex> l(g.mu);
  return {g.seed, g.offset};
}
void set_rng_state(uint64_t seed, uint64_t offset) {
  Generator& g = gen();
  std::lock_guard<std::mutex> l(g.mu);
  g.seed = seed;
  g.offset = offset;
}

Tensor uniform(double low, double high, const Shape& shape, DType dtype) {
  check_sizes(shape, "uniform");
  check_float(dtype, "uniform");
  TANDEM_CHECK(low <= high, ValueError, "uniform: expects low <= high, got low=", low,
               " high=", high);
  return dispatch1(uniform_op, {},
                   {{"shape", shape}, {"dtype", int64_t(dtype)}, {"a", low}, {"b", high}});
}
Tensor rand(const Shape& shape, DType dtype) {
  check_sizes(shape, "rand");
  return uniform(0, 1, shape, dtype);
}
Tensor normal(double mean, double std, const Shape& shape, DType dtype) {
  check_sizes(shape, "normal");
  check_float(dtype, "normal");
  TANDEM_CHECK(std >= 0, ValueError, "normal: expects std >= 0.0, got ", std);
  return dispatch1(normal_op, {},
                   {{"shape", shape}, {"dtype", int64_t(dtype)}, {"a", mean}, {"b", std}});
}
Tensor randn(const Shape& shape, DType dtype) {
  check_sizes(shape, "randn");
  return normal(0, 1, shape, dtype);
}
Tensor randint(int64_t low, int64_t high, const Shape& shape, DType dtype) {
  check_sizes(shape, "randint");
  TANDEM_CHECK(low < high, ValueError, "randint: expects low < high, got low=", low,
               " high=", high);
  // As in PyTorch: every value of [low, high) must be representable in dtype.
  if (!is_floating(dtype) || dtype == DType::Float16) {
    double lo_ok = -float_max(dtype), hi_ok = float_max(dtype);
    if (!is_floating(dtype)) {
      auto [a, b] = int_range(dtype);
      lo_ok = double(a), hi_ok = double(b);
    }
    TANDEM_CHECK(double(low) >= lo_ok, ValueError, "randint: low=", low, " is out of bounds for ",
                 dtype_name(dtype));
    TANDEM_CHECK(double(high) - 1 <= hi_ok, ValueError, "randint: high - 1 = ", high - 1,
                 " is out of bounds for ", dtype_name(dtype));
  }
  return dispatch1(randint_op, {},
                   {{"shape", shape}, {"dtype", int64_t(dtype)}, {"low", low}, {"high", high}});
}
Tensor bernoulli(const Tensor& p) {
  check_float(p.dtype(), "bernoulli");
  // Probabilities outside [0, 1] (or NaN) are an error, as in PyTorch, not a silent 0 or 1.
  if (auto r = value_range(p)) {
    double lo = r->first.to_double(), hi = r->second.to_double();
    TANDEM_CHECK(lo >= 0 && hi <= 1, ValueError,
                 "bernoulli: probabilities must be in [0, 1], got values in [", lo, ", ", hi, "]");
  }
  return dispatch1(bernoulli_op, {p});
}
Tensor bernoulli(const Shape& shape, double p, DType dtype) {
  check_sizes(shape, "bernoulli");
  TANDEM_CHECK(p >= 0 && p <= 1, ValueError, "bernoulli: p must be in [0, 1], got ", p);
  check_float(dtype, "bernoulli");
  return dispatch1(bernoulli_op, {full(shape, Scalar(p), dtype)});  // p is checked above
}
const Tensor& normal_(const Tensor& x, double mean, double std) {
  return copy_(x,
               normal(mean, std, x.shape(), is_floating(x.dtype()) ? x.dtype() : DType::Float64));
}
const Tensor& uniform_(const Tensor& x, double low, double high) {
  return copy_(x,
               uniform(low, high, x.shape(), is_floating(x.dtype()) ? x.dtype() : DType::Float64));
}

Tensor randperm(int64_t n, DType dtype) {
  TANDEM_CHECK(n >= 0, ValueError, "randperm: n must be non-negative, got ", n);
  auto [seed, off] = reserve(uint64_t(std::max<int64_t>(n, 1)));
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
    auto r = philox4x32(off + uint64_t(i), seed);
    uint64_t j = ((uint64_t(r[0]) << 32) | r[1]) % uint64_t(i + 1);
    std::swap(v[i], v[j]);
  }
  Tensor out = Tensor::empty({n}, DType::Int64);
  std::copy(v.begin(), v.end(), out.data<int64_t>());
  return to_dtype(out, dtype);
}

Tensor multinomial(const Tensor& p, int64_t num_samples, bool replacement) {
  TANDEM_CHECK(p.dim() == 1 || p.dim() == 2, ValueError,
               "multinomial: prob_dist must be 1 or 2 dim, got ", p.dim());
  TANDEM_CHECK(num_samples > 0, ValueError, "multinomial: num_samples must be positive");
  Tensor w = to_dtype(p.dim() == 1 ? p : p, DType::Float64).contiguous();
  int64_t rows = p.dim() == 1 ? 1 : p.shape()[0], cats = p.shape().back();
  TANDEM_CHECK(replacement || num_samples <= cats, ValueError,
               "multinomial: cannot sample n_sample (", num_samples, ") > prob_dist.size(-1) (",
               cats, ") samples without replacement");
  const double* wp = w.data<double>();
  for (int64_t i = 0; i < rows * cats; ++i)
    TANDEM_CHECK(std::isfinite(wp[i]) && wp[i] >= 0, ValueError,
                 "multinomial: probability tensor contains either inf, nan or element < 0");
  auto [seed, off] = reserve(uint64_t(rows * num_samples));
  Tensor out =
      Tensor::empty(p.dim() == 1 ? Shape{num_samples} : Shape{rows, num_samples}, DType::Int64);
  int64_t* o = out.data<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> row(wp + r * cats, wp + (r + 1) * cats);
    for (int64_t s = 0; s < num_samples; ++s) {
      double total = 0;
      for (double v : row) total += v;
      TANDEM_CHECK(total > 0, ValueError,
                   "multinomial: invalid distribution (sum of probabilities <= 0)");
      auto rnd = philox4x32(off + uint64_t(r * num_samples + s), seed);
      double u = to_unit_double(rnd[0], rnd[1]) * total, acc = 0;
      int64_t pick = cats - 1;
      for (int64_t c = 0; c < cats; ++c) {
        acc += row[c];
        if (u < acc && row[c] > 0) {
          pick = c;
          break;
        }
      }
      o[r * num_samples + s] = pick;
      if (!replacement) row[pick] = 0;
    }
  }
  return out;
}

}  // namespace tandem
