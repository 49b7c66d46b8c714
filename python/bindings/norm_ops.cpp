// Normalization ops of tandem._C: batch / layer / group / instance norm, plus the forward ops
// that return the saved statistics and the backward ops (for autodiff and tests).
#include "common.h"
#include "tandem/ops/norm.h"

namespace tandem::py {
namespace {

using OptTensor = std::optional<Tensor>;

Tensor opt(const OptTensor& t) {
  return t.value_or(Tensor());
}

nb::tuple triple(const std::vector<Tensor>& r) {
  return nb::make_tuple(r[0], r[1], r[2]);
}

}  // namespace

void bind_norm_ops(nb::module_& m) {
  using nb::arg;
  m.def(
      "batch_norm",
      [](const Tensor& x, OptTensor rm, OptTensor rv, OptTensor w, OptTensor b, bool training,
         double momentum, double eps) {
        return batch_norm(x, opt(rm), opt(rv), opt(w), opt(b), training, momentum, eps);
      },
      arg("input"), arg("running_mean").none(), arg("running_var").none(),
      arg("weight").none() = nb::none(), arg("bias").none() = nb::none(), arg("training") = false,
      arg("momentum") = 0.1, arg("eps") = 1e-5);
  m.def(
      "batch_norm_forward",
      [](const Tensor& x, OptTensor w, OptTensor b, OptTensor rm, OptTensor rv, bool training,
         double eps) {
        return triple(batch_norm_forward(x, opt(w), opt(b), opt(rm), opt(rv), training, eps));
      },
      arg("input"), arg("weight").none(), arg("bias").none(), arg("running_mean").none(),
      arg("running_var").none(), arg("training"), arg("eps") = 1e-5);
  m.def(
      "batch_norm_backward",
      [](const Tensor& gy, const Tensor& x, OptTensor w, const Tensor& save_mean,
         const Tensor& save_invstd, bool training) {
        return triple(batch_norm_backward(gy, x, opt(w), save_mean, save_invstd, training));
      },
      arg("grad_output"), arg("input"), arg("weight").none(), arg("save_mean"), arg("save_invstd"),
      arg("training"));

  m.def(
      "layer_norm",
      [](const Tensor& x, std::vector<int64_t> ns, OptTensor w, OptTensor b, double eps) {
        return layer_norm(x, ns, opt(w), opt(b), eps);
      },
      arg("input"), arg("normalized_shape"), arg("weight").none() = nb::none(),
      arg("bias").none() = nb::none(), arg("eps") = 1e-5);
  m.def(
      "layer_norm_forward",
      [](const Tensor& x, std::vector<int64_t> ns, OptTensor w, OptTensor b, double eps) {
        return triple(layer_norm_forward(x, ns, opt(w), opt(b), eps));
      },
      arg("input"), arg("normalized_shape"), arg("weight").none(), arg("bias").none(),
      arg("eps") = 1e-5);
  m.def(
      "layer_norm_backward",
      [](const Tensor& gy, const Tensor& x, std::vector<int64_t> ns, const Tensor& mean,
         const Tensor& rstd,
         OptTensor w) { return triple(layer_norm_backward(gy, x, ns, mean, rstd, opt(w))); },
      arg("grad_output"), arg("input"), arg("normalized_shape"), arg("mean"), arg("rstd"),
      arg("weight").none());

  m.def(
      "group_norm",
      [](const Tensor& x, int64_t groups, OptTensor w, OptTensor b, double eps) {
        return group_norm(x, groups, opt(w), opt(b), eps);
      },
      arg("input"), arg("num_groups"), arg("weight").none() = nb::none(),
      arg("bias").none() = nb::none(), arg("eps") = 1e-5);
  m.def(
      "group_norm_forward",
      [](const Tensor& x, int64_t groups, OptTensor w, OptTensor b, double eps) {
        return triple(group_norm_forward(x, groups, opt(w), opt(b), eps));
      },
      arg("input"), arg("num_groups"), arg("weight").none(), arg("bias").none(), arg("eps") = 1e-5);
  m.def(
      "group_norm_backward",
      [](const Tensor& gy, const Tensor& x, int64_t groups, const Tensor& mean, const Tensor& rstd,
         OptTensor w) { return triple(group_norm_backward(gy, x, groups, mean, rstd, opt(w))); },
      arg("grad_output"), arg("input"), arg("num_groups"), arg("mean"), arg("rstd"),
      arg("weight").none());

  m.def(
      "instance_norm",
      [](const Tensor& x, OptTensor rm, OptTensor rv, OptTensor w, OptTensor b,
         bool use_input_stats, double momentum, double eps) {
        return instance_norm(x, opt(rm), opt(rv), opt(w), opt(b), use_input_stats, momentum, eps);
      },
      arg("input"), arg("running_mean").none() = nb::none(), arg("running_var").none() = nb::none(),
      arg("weight").none() = nb::none(), arg("bias").none() = nb::none(),
      arg("use_input_stats") = true, arg("momentum") = 0.1, arg("eps") = 1e-5);
}

}  // namespace tandem::py
