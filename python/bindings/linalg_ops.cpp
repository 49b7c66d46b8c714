// Linear-algebra functions of tandem._C.
#include "common.h"
#include "tandem/ops/linalg.h"

namespace tandem::py {

void bind_linalg_ops(nb::module_& m) {
  using nb::arg;
  m.def("matmul", &matmul, arg("input"), arg("other"));
  m.def("mm", &mm, arg("input"), arg("mat2"));
  m.def("bmm", &bmm, arg("input"), arg("mat2"));
  m.def("mv", &mv, arg("input"), arg("vec"));
  m.def("dot", &dot, arg("input"), arg("other"));
  m.def("outer", &outer, arg("input"), arg("vec2"));
  m.def(
      "addmm",
      [](const Tensor& x, const Tensor& a, const Tensor& b, nb::handle beta, nb::handle alpha) {
        return addmm(x, a, b, as_scalar(beta, "addmm"), as_scalar(alpha, "addmm"));
      },
      arg("input"), arg("mat1"), arg("mat2"), arg("beta") = 1, arg("alpha") = 1);
  m.def(
      "baddbmm",
      [](const Tensor& x, const Tensor& a, const Tensor& b, nb::handle beta, nb::handle alpha) {
        return baddbmm(x, a, b, as_scalar(beta, "baddbmm"), as_scalar(alpha, "baddbmm"));
      },
      arg("input"), arg("batch1"), arg("batch2"), arg("beta") = 1, arg("alpha") = 1);
  m.def(
      "linear",
      [](const Tensor& x, const Tensor& w, std::optional<Tensor> b) {
        return linear(x, w, b.value_or(Tensor()));
      },
      arg("input"), arg("weight"), arg("bias").none() = nb::none());
  m.def("tensordot", &tensordot, arg("a"), arg("b"), arg("dims_a"), arg("dims_b"));
  m.def("einsum", &einsum, arg("equation"), arg("operands"));
  m.def("trace", &trace, arg("input"));
  m.def("cross", &cross, arg("input"), arg("other"), arg("dim") = -1);
  m.def("cdist", &cdist, arg("x1"), arg("x2"), arg("p") = 2.0);
  m.def("inv", &inv, arg("input"));
}

}  // namespace tandem::py
