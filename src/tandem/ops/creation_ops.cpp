// Creation OpDefs with no tensor inputs: full, arange, linspace, eye.
#include <cmath>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

std::vector<TensorMeta> shape_dtype_infer(const OpDef&, const std::vector<Tensor>&,
                                          const Attrs& a) {
  return {{a.get_ints("shape"), a.get_dtype("dtype")}};
}

void full_kernel(const OpDef&, const std::vector<Tensor>&, std::vector<Tensor>& out,
                 const Attrs& a) {
  Scalar v =
      a.get_bool("is_float") ? Scalar(a.get_float("value")) : Scalar(int64_t(a.get_int("ivalue")));
  copy_into(out[0], Tensor::wrap_scalar(v, out[0].dtype()));
}

// arange and linspace both write start + i * step, in double, then convert.
void range_kernel(const OpDef& op, const std::vector<Tensor>&, std::vector<Tensor>& out,
                  const Attrs& a) {
  int64_t n = out[0].numel();
  double start = a.get_float("start"), step = a.get_float("step");
  bool sym = op.name == "linspace";  // fill the second half from the end, like PyTorch
  double end = sym ? a.get_float("end") : 0;
  if (is_integral(out[0].dtype(), true) && !sym) {
    int64_t s0 = a.get_int_or("istart", 0), st = a.get_int_or("istep", 1);
    bool ints = a.has("istart");
    TANDEM_DISPATCH_COMPUTE(out[0].dtype(), "arange", [&] {
      scalar_t* p = out[0].data<scalar_t>();
      for (int64_t i = 0; i < n; ++i)
        p[i] = ints ? scalar_t(s0 + i * st) : scalar_t(start + double(i) * step);
    });
    return;
  }
  Tensor tmp = Tensor::empty(out[0].shape(), DType::Float64);
  double* p = tmp.data<double>();
  int64_t half = n / 2;
  bool from_end = sym && n > 1;  // linspace(start, end, 1) is [start], as in PyTorch
  for (int64_t i = 0; i < n; ++i)
    p[i] = (from_end && i >= half) ? end - double(n - 1 - i) * step : start + double(i) * step;
  copy_into(out[0], tmp);
}

void eye_kernel(const OpDef&, const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs&) {
  copy_into(out[0], Tensor::wrap_scalar(Scalar(int64_t(0)), out[0].dtype()));
  Tensor d = diagonal(out[0], 0, 0, 1);
  copy_into(d, Tensor::wrap_scalar(Scalar(int64_t(1)), out[0].dtype()));
}

OpDef make_creation(const char* name, KernelFn k) {
  OpDef op;
  op.name = name;
  op.infer = shape_dtype_infer;
  op.kernel = k;
  return op;
}
const OpDef full_op = make_creation("full", full_kernel);
const OpDef arange_op = make_creation("arange", range_kernel);
const OpDef linspace_op = make_creation("linspace", range_kernel);
const OpDef eye_op = make_creation("eye", eye_kernel);
TANDEM_REGISTER_OP(full_op)
TANDEM_REGISTER_OP(arange_op)
TANDEM_REGISTER_OP(linspace_op)
TANDEM_REGISTER_OP(eye_op)
// Constants and random draws carry no gradient.
TANDEM_NOT_DIFFERENTIABLE(full_op)
TANDEM_NOT_DIFFERENTIABLE(arange_op)
TANDEM_NOT_DIFFERENTIABLE(linspace_op)
TANDEM_NOT_DIFFERENTIABLE(eye_op)

}  // namespace

Tensor full(const Shape& shape, Scalar value, std::optional<DType> dtype) {
  check_sizes(shape, "full");
  check_fill_fits(value, dtype.value_or(value.default_dtype()), "full");
  Attrs a{{"shape", shape},
          {"dtype", int64_t(dtype.value_or(value.default_dtype()))},
          {"is_float", value.is_float()}};
  if (value.is_float())
    a.set("value", value.to_double());
  else
    a.set("ivalue", value.to_int());
  return dispatch1(full_op, {}, a);
}
Tensor zeros(const Shape& shape, DType dtype) {
  return full(shape, Scalar(int64_t(0)), dtype);
}
Tensor ones(const Shape& shape, DType dtype) {
  return full(shape, Scalar(int64_t(1)), dtype);
}
Tensor empty(const Shape& shape, DType dtype) {
  check_sizes(shape, "empty");
  return Tensor::empty(shape, dtype);
}

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype) {
  bool ints = !start.is_float() && !end.is_float() && !step.is_float();
  DType dt = dtype.value_or(ints ? DType::Int64 : DType::Float32);
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  TANDEM_CHECK(st != 0, ValueError, "arange: step must be nonzero");
  // An integer result counts in int64, as in torch: start, end and step must convert.
  if (!is_floating(dt))
    for (const Scalar& v : {start, end, step}) check_scalar_fits(v, DType::Int64, "arange");
  // 16-bit float results count in float32, as in torch: the bounds must fit it.
  if (dt == DType::Float16 || dt == DType::BFloat16)
    for (const Scalar& v : {start, end, step}) check_scalar_fits(v, DType::Float32, "arange");
  TANDEM_CHECK(std::isfinite(s) && std::isfinite(e), ValueError, "arange: unsupported range: ", s,
               " -> ", e);
  TANDEM_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), ValueError,
               "arange: upper bound and larger bound inconsistent with step sign (start=", s,
               ", end=", e, ", step=", st, ")");
  // The count in a wider type: int64 differences and tiny float steps overflow int64.
  __int128 wide =
      ints ? (__int128(end.to_int()) - start.to_int() + step.to_int() - (st > 0 ? 1 : -1)) /
                 step.to_int()
           : 0;
  double fcount = ints ? double(wide) : std::ceil((e - s) / st);
  TANDEM_CHECK(std::isfinite(fcount) && fcount < 9.2e18, ValueError,
               "arange: invalid size: ", "(end - start) / step = ", fcount, " elements (start=", s,
               ", end=", e, ", step=", st, "); possible overflow");
  int64_t n = ints ? int64_t(wide) : int64_t(fcount);
  Attrs a{{"shape", Shape{std::max<int64_t>(n, 0)}},
          {"dtype", int64_t(dt)},
          {"start", s},
          {"step", st}};
  if (ints) {
    a.set("istart", start.to_int()).set("istep", step.to_int());
  } else if (!is_floating(dt)) {
    // Float bounds into an integer dtype: the values are trunc(start) + i * trunc(step), as in
    // torch and numpy (start + i * step truncated would repeat values: -3.25 + 3 and + 4 both
    // give 0); the count stays that of the float range.
    const int64_t istep = int64_t(std::trunc(st));
    TANDEM_CHECK(istep != 0, ValueError, "arange: step must be nonzero (", st,
                 " truncates to 0 for the integer dtype ", dtype_name(dt), ")");
    a.set("istart", int64_t(std::trunc(s))).set("istep", istep);
  }
  return dispatch1(arange_op, {}, a);
}

Tensor linspace(double start, double end, int64_t steps, DType dtype) {
  TANDEM_CHECK(steps >= 0, ValueError, "linspace: number of steps must be non-negative, got ",
               steps);
  double step = steps > 1 ? (end - start) / double(steps - 1) : 0.0;
  return dispatch1(linspace_op, {},
                   {{"shape", Shape{steps}},
                    {"dtype", int64_t(dtype)},
                    {"start", start},
                    {"end", end},
                    {"step", step}});
}

Tensor eye(int64_t n, std::optional<int64_t> m, DType dtype) {
  TANDEM_CHECK(n >= 0 && m.value_or(0) >= 0, ValueError, "eye: n and m must be non-negative");
  return dispatch1(eye_op, {}, {{"shape", Shape{n, m.value_or(n)}}, {"dtype", int64_t(dtype)}});
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing) {
  TANDEM_CHECK(indexing == "ij" || indexing == "xy", ValueError,
               "meshgrid: indexing must be 'ij' or 'xy', got '", indexing, "'");
  for (auto& x : xs)
    TANDEM_CHECK(x.dim() <= 1, ValueError, "meshgrid: expects 0-d or 1-d tensors, got ", x.dim(),
                 "-d");
  bool swap = indexing == "xy" && xs.size() >= 2;
  Shape shape;
  for (auto& x : xs) shape.push_back(x.numel());
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (size_t i = 0; i < xs.size(); ++i) {
    size_t pos = i;
    if (swap && i < 2) pos = 1 - i;
    Shape vs(xs.size(), 1);
    vs[pos] = xs[i].numel();
    out.push_back(expand(reshape(xs[i], vs), shape));
  }
  return out;
}

}  // namespace tandem
