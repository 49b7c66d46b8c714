// Op functions of tandem._C. Operands that may be Python numbers arrive as handles and
// become wrapped scalars; the Python layer (tandem.ops / tandem.mint) adds the friendly
// keyword names (dim/axis, keepdim/keepdims).
#include "common.h"
#include "tandem/core/allocator.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::py {
namespace {

std::optional<DType> opt_dtype(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  DType d;
  if (!nb::try_cast(h, d))
    throw_error<TypeError>("dtype must be a tandem dtype such as tandem.float32, got ",
                           nb::type_name(h.type()).c_str(), " ", nb::repr(h).c_str());
  return d;
}
std::optional<Scalar> opt_scalar(nb::handle h, const char* op) {
  if (h.is_none()) return std::nullopt;
  return as_scalar(h, op);
}

}  // namespace

void bind_ops(nb::module_& m) {
  using nb::arg;
#define UNARY(name) \
  m.def(            \
      #name, [](nb::handle x) { return tandem::name(as_operand(x, #name)); }, arg("input"));
  TANDEM_UNARY_OPS(UNARY)
#undef UNARY
#define BINARY(name)                                                     \
  m.def(                                                                 \
      #name,                                                             \
      [](nb::handle a, nb::handle b) {                                   \
        return tandem::name(as_operand(a, #name), as_operand(b, #name)); \
      },                                                                 \
      arg("input"), arg("other"));
  TANDEM_BINARY_OPS(BINARY)
  BINARY(relu_backward)
#undef BINARY
  m.def(
      "add",
      [](nb::handle a, nb::handle b, nb::handle alpha) {
        return add(as_operand(a, "add"), as_operand(b, "add"), as_scalar(alpha, "add"));
      },
      arg("input"), arg("other"), arg("alpha") = 1);
  m.def(
      "sub",
      [](nb::handle a, nb::handle b, nb::handle alpha) {
        return sub(as_operand(a, "sub"), as_operand(b, "sub"), as_scalar(alpha, "sub"));
      },
      arg("input"), arg("other"), arg("alpha") = 1);
  m.def(
      "mul",
      [](nb::handle a, nb::handle b) { return mul(as_operand(a, "mul"), as_operand(b, "mul")); },
      arg("input"), arg("other"));
  m.def(
      "div",
      [](nb::handle a, nb::handle b, std::optional<std::string> mode) {
        return div(as_operand(a, "div"), as_operand(b, "div"), mode.value_or(""));
      },
      arg("input"), arg("other"), arg("rounding_mode").none() = nb::none());
  m.def(
      "round", [](const Tensor& x, int64_t d) { return round(x, d); }, arg("input"),
      arg("decimals") = 0);
  // The activation parameters are PyTorch Scalars: as_real range-checks Python ints.
  m.def(
      "leaky_relu",
      [](const Tensor& x, nb::handle s) {
        return leaky_relu(x, as_real(s, "leaky_relu", "negative_slope"));
      },
      arg("input"), arg("negative_slope").none() = 0.01);
  m.def(
      "elu", [](const Tensor& x, nb::handle a) { return elu(x, as_real(a, "elu", "alpha")); },
      arg("input"), arg("alpha").none() = 1.0);
  m.def(
      "celu", [](const Tensor& x, nb::handle a) { return celu(x, as_real(a, "celu", "alpha")); },
      arg("input"), arg("alpha").none() = 1.0);
  m.def("gelu", &gelu, arg("input"), arg("approximate") = "none");
  m.def(
      "softplus",
      [](const Tensor& x, nb::handle beta, nb::handle threshold) {
        return softplus(x, as_real(beta, "softplus", "beta"),
                        as_real(threshold, "softplus", "threshold"));
      },
      arg("input"), arg("beta").none() = 1.0, arg("threshold").none() = 20.0);
  m.def(
      "hardtanh",
      [](const Tensor& x, nb::handle lo, nb::handle hi) {
        return hardtanh(x, as_real(lo, "hardtanh", "min_val"), as_real(hi, "hardtanh", "max_val"));
      },
      arg("input"), arg("min_val").none() = -1.0, arg("max_val").none() = 1.0);
  m.def(
      "clamp",
      [](const Tensor& x, nb::handle lo, nb::handle hi) {
        if (nb::isinstance<Tensor>(lo) || nb::isinstance<Tensor>(hi))
          return clamp(x, lo.is_none() ? Tensor() : as_operand(lo, "clamp"),
                       hi.is_none() ? Tensor() : as_operand(hi, "clamp"));
        return clamp(x, opt_scalar(lo, "clamp"), opt_scalar(hi, "clamp"));
      },
      arg("input"), arg("min").none() = nb::none(), arg("max").none() = nb::none());
  m.def("nan_to_num", &nan_to_num, arg("input"), arg("nan").none() = nb::none(),
        arg("posinf").none() = nb::none(), arg("neginf").none() = nb::none());
  m.def(
      "where",
      [](nb::handle c, nb::handle a, nb::handle b) {
        return where(as_operand(c, "where"), as_operand(a, "where"), as_operand(b, "where"));
      },
      arg("condition"), arg("input"), arg("other"));
  m.def(
      "lerp",
      [](nb::handle a, nb::handle b, nb::handle w) {
        return lerp(as_operand(a, "lerp"), as_operand(b, "lerp"), as_operand(w, "lerp"));
      },
      arg("input"), arg("end"), arg("weight"));
  m.def(
      "addcmul",
      [](nb::handle x, nb::handle a, nb::handle b, nb::handle v) {
        return addcmul(as_operand(x, "addcmul"), as_operand(a, "addcmul"), as_operand(b, "addcmul"),
                       as_scalar(v, "addcmul"));
      },
      arg("input"), arg("tensor1"), arg("tensor2"), arg("value") = 1);
  m.def(
      "addcdiv",
      [](nb::handle x, nb::handle a, nb::handle b, nb::handle v) {
        return addcdiv(as_operand(x, "addcdiv"), as_operand(a, "addcdiv"), as_operand(b, "addcdiv"),
                       as_scalar(v, "addcdiv"));
      },
      arg("input"), arg("tensor1"), arg("tensor2"), arg("value") = 1);
  m.def(
      "isclose",
      [](nb::handle a, nb::handle b, double rtol, double atol, bool en) {
        return isclose(as_operand(a, "isclose"), as_operand(b, "isclose"), rtol, atol, en);
      },
      arg("input"), arg("other"), arg("rtol") = 1e-5, arg("atol") = 1e-8, arg("equal_nan") = false);
  m.def(
      "allclose",
      [](nb::handle a, nb::handle b, double rtol, double atol, bool en) {
        return allclose(as_operand(a, "allclose"), as_operand(b, "allclose"), rtol, atol, en);
      },
      arg("input"), arg("other"), arg("rtol") = 1e-5, arg("atol") = 1e-8, arg("equal_nan") = false);
  m.def("equal", &equal, arg("input"), arg("other"));
  m.def("to_dtype", &to_dtype, arg("input"), arg("dtype"), arg("copy") = false);
  m.def("clone", &clone, arg("input"));

  // Reductions: dims is None or a list of ints.
  m.def(
      "sum",
      [](const Tensor& x, nb::handle d, bool k, nb::handle dt) {
        return sum(x, as_dims(d), k, opt_dtype(dt));
      },
      arg("input"), arg("dims").none(), arg("keepdim"), arg("dtype").none());
  m.def(
      "mean",
      [](const Tensor& x, nb::handle d, bool k, nb::handle dt) {
        return mean(x, as_dims(d), k, opt_dtype(dt));
      },
      arg("input"), arg("dims").none(), arg("keepdim"), arg("dtype").none());
  m.def(
      "prod",
      [](const Tensor& x, nb::handle d, bool k, nb::handle dt) {
        return prod(x, as_dims(d), k, opt_dtype(dt));
      },
      arg("input"), arg("dims").none(), arg("keepdim"), arg("dtype").none());
#define REDUCE2(name)                                                                      \
  m.def(                                                                                   \
      #name, [](const Tensor& x, nb::handle d, bool k) { return name(x, as_dims(d), k); }, \
      arg("input"), arg("dims").none(), arg("keepdim"));
  REDUCE2(amax);
  REDUCE2(amin);
  REDUCE2(all);
  REDUCE2(any);
#undef REDUCE2
  m.def("max_dim", &max_dim, arg("input"), arg("dim"), arg("keepdim"));
  m.def("min_dim", &min_dim, arg("input"), arg("dim"), arg("keepdim"));
  m.def("argmax", &argmax, arg("input"), arg("dim").none(), arg("keepdim"));
  m.def("argmin", &argmin, arg("input"), arg("dim").none(), arg("keepdim"));
  m.def(
      "var_mean",
      [](const Tensor& x, nb::handle d, double c, bool k) { return var_mean(x, as_dims(d), c, k); },
      arg("input"), arg("dims").none(), arg("correction"), arg("keepdim"));
  m.def(
      "std_mean",
      [](const Tensor& x, nb::handle d, double c, bool k) { return std_mean(x, as_dims(d), c, k); },
      arg("input"), arg("dims").none(), arg("correction"), arg("keepdim"));
  m.def(
      "var",
      [](const Tensor& x, nb::handle d, double c, bool k) { return var(x, as_dims(d), c, k); },
      arg("input"), arg("dims").none(), arg("correction"), arg("keepdim"));
  m.def(
      "std",
      [](const Tensor& x, nb::handle d, double c, bool k) {
        return tandem::std(x, as_dims(d), c, k);
      },
      arg("input"), arg("dims").none(), arg("correction"), arg("keepdim"));
  m.def(
      "logsumexp",
      [](const Tensor& x, nb::handle d, bool k) { return logsumexp(x, as_dims(d), k); },
      arg("input"), arg("dims").none(), arg("keepdim"));
  m.def(
      "norm",
      [](const Tensor& x, double p, nb::handle d, bool k) { return norm(x, p, as_dims(d), k); },
      arg("input"), arg("p"), arg("dims").none(), arg("keepdim"));
  m.def(
      "count_nonzero", [](const Tensor& x, nb::handle d) { return count_nonzero(x, as_dims(d)); },
      arg("input"), arg("dims").none());

  // Creation and random.
  m.def(
      "full",
      [](nb::handle shape, nb::handle v, nb::handle dt) {
        if (nb::isinstance<Tensor>(v)) v = nb::cast(nb::cast<Tensor>(v).item().to_double());
        return full(as_shape(shape, "full"), as_scalar(v, "full"), opt_dtype(dt));
      },
      arg("size"), arg("fill_value"), arg("dtype").none() = nb::none());
  m.def(
      "empty", [](nb::handle shape, DType dt) { return empty(as_shape(shape, "empty"), dt); },
      arg("size"), arg("dtype"));
  m.def(
      "arange",
      [](nb::handle s, nb::handle e, nb::handle st, nb::handle dt) {
        return arange(as_scalar(s, "arange"), as_scalar(e, "arange"), as_scalar(st, "arange"),
                      opt_dtype(dt));
      },
      arg("start"), arg("end"), arg("step"), arg("dtype").none());
  m.def("linspace", &linspace, arg("start"), arg("end"), arg("steps"), arg("dtype"));
  m.def("eye", &eye, arg("n"), arg("m").none(), arg("dtype"));
  m.def("meshgrid", &meshgrid, arg("tensors"), arg("indexing"));
  m.def("manual_seed", &manual_seed, arg("seed"));
  m.def("initial_seed", &initial_seed);
  m.def("get_rng_state", &get_rng_state);
  m.def("set_rng_state", &set_rng_state, arg("seed"), arg("offset"));
  m.def(
      "rand", [](nb::handle s, DType dt) { return rand(as_shape(s, "rand"), dt); }, arg("size"),
      arg("dtype"));
  m.def(
      "randn", [](nb::handle s, DType dt) { return randn(as_shape(s, "randn"), dt); }, arg("size"),
      arg("dtype"));
  m.def(
      "randint",
      [](int64_t lo, int64_t hi, nb::handle s, DType dt) {
        return randint(lo, hi, as_shape(s, "randint"), dt);
      },
      arg("low"), arg("high"), arg("size"), arg("dtype"));
  m.def(
      "normal",
      [](double mean, double std, nb::handle s, DType dt) {
        return normal(mean, std, as_shape(s, "normal"), dt);
      },
      arg("mean"), arg("std"), arg("size"), arg("dtype"));
  m.def(
      "uniform",
      [](double lo, double hi, nb::handle s, DType dt) {
        return uniform(lo, hi, as_shape(s, "uniform"), dt);
      },
      arg("low"), arg("high"), arg("size"), arg("dtype"));
  m.def(
      "bernoulli", [](const Tensor& p) { return bernoulli(p); }, arg("input"));
  m.def("randperm", &randperm, arg("n"), arg("dtype"));
  m.def("multinomial", &multinomial, arg("input"), arg("num_samples"), arg("replacement"));
  m.def(
      "normal_",
      [](nb::handle self, double mean, double std) {
        normal_(nb::cast<Tensor&>(self), mean, std);
        return nb::borrow(self);
      },
      arg("self"), arg("mean"), arg("std"));
  m.def(
      "uniform_",
      [](nb::handle self, double lo, double hi) {
        uniform_(nb::cast<Tensor&>(self), lo, hi);
        return nb::borrow(self);
      },
      arg("self"), arg("low"), arg("high"));

  // Indexing family.
  m.def("index_select", &index_select, arg("input"), arg("dim"), arg("index"));
  m.def("gather", &gather, arg("input"), arg("dim"), arg("index"), arg("wrap") = true);
  m.def(
      "scatter",
      [](const Tensor& x, int64_t dim, const Tensor& idx, nb::handle src,
         std::optional<std::string> reduce, bool wrap) {
        Tensor s;
        if (is_number(src)) {
          // The number is stored into x's dtype: with torch's overflow check (1000 into int8
          // raises), unless no position is written.
          const Scalar v = as_scalar(src, "scatter");
          if (idx.numel() > 0) check_scalar_fits(v, x.dtype(), "scatter");
          s = Tensor::wrap_scalar(v, x.dtype());
        } else {
          s = as_operand(src, "scatter");
        }
        return scatter(x, dim, idx, s, reduce.value_or(""), wrap);
      },
      arg("input"), arg("dim"), arg("index"), arg("src"), arg("reduce").none() = nb::none(),
      arg("wrap") = true);
  m.def("scatter_add", &scatter_add, arg("input"), arg("dim"), arg("index"), arg("src"),
        arg("wrap") = true);
  m.def(
      "index_add",
      [](const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& src, nb::handle alpha) {
        return index_add(x, dim, idx, src, as_scalar(alpha, "index_add"));
      },
      arg("input"), arg("dim"), arg("index"), arg("source"), arg("alpha") = 1);
  m.def(
      "masked_fill",
      [](const Tensor& x, const Tensor& mask, nb::handle v) {
        return masked_fill(x, mask, as_operand(v, "masked_fill"));
      },
      arg("input"), arg("mask"), arg("value"));
  m.def(
      "masked_fill_",
      [](nb::handle self, const Tensor& mask, nb::handle v) {
        masked_fill_(nb::cast<Tensor&>(self), mask, as_operand(v, "masked_fill_"));
        return nb::borrow(self);
      },
      arg("self"), arg("mask"), arg("value"));
  m.def("masked_select", &masked_select, arg("input"), arg("mask"));
  m.def("take", &take, arg("input"), arg("index"));
  m.def("nonzero", &nonzero, arg("input"));
  m.def("one_hot", &one_hot, arg("input"), arg("num_classes") = -1);
  m.def(
      "index_put",
      [](const Tensor& x, std::vector<int64_t> dims, std::vector<Tensor> idx, nb::handle v,
         bool acc) { return index_put(x, dims, idx, as_operand(v, "index_put"), acc); },
      arg("input"), arg("dims"), arg("indices"), arg("values"), arg("accumulate") = false);

  // Allocator statistics.
  m.def(
      "memory_stats",
      [] {
        AllocatorStats s = allocator_stats();
        nb::dict d;
        d["bytes_in_use"] = s.bytes_in_use;
        d["peak_bytes_in_use"] = s.peak_bytes_in_use;
        d["bytes_cached"] = s.bytes_cached;
        d["num_allocs"] = s.num_allocs;
        d["num_system_allocs"] = s.num_system_allocs;
        return d;
      },
      "Caching allocator counters: bytes in use, peak, cached, allocation counts.");
  m.def("reset_peak_memory_stats", &reset_peak_bytes);
  m.def("empty_cache", &empty_cache);
}

}  // namespace tandem::py
