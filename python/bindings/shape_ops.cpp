// Shape and view functions of tandem._C.
#include "tandem/ops/shape_ops.h"
#include "common.h"

namespace tandem::py {

void bind_shape_ops(nb::module_& m) {
  using nb::arg;
  m.def(
      "reshape", [](const Tensor& x, nb::handle s) { return reshape(x, as_shape(s, "reshape")); },
      arg("input"), arg("shape"));
  m.def(
      "view", [](const Tensor& x, nb::handle s) { return view(x, as_shape(s, "view")); },
      arg("input"), arg("shape"));
  m.def(
      "permute", [](const Tensor& x, nb::handle d) { return permute(x, as_shape(d, "permute")); },
      arg("input"), arg("dims"));
  m.def("transpose", &transpose, arg("input"), arg("dim0"), arg("dim1"));
  m.def("t", &t, arg("input"));
  m.def(
      "squeeze", [](const Tensor& x, nb::handle d) { return squeeze(x, as_dims(d)); }, arg("input"),
      arg("dim").none() = nb::none());
  m.def("unsqueeze", &unsqueeze, arg("input"), arg("dim"));
  m.def(
      "expand", [](const Tensor& x, nb::handle s) { return expand(x, as_shape(s, "expand")); },
      arg("input"), arg("size"));
  m.def(
      "broadcast_to",
      [](const Tensor& x, nb::handle s) { return broadcast_to(x, as_shape(s, "broadcast_to")); },
      arg("input"), arg("shape"));
  m.def("slice", &slice, arg("input"), arg("dim"), arg("start").none(), arg("stop").none(),
        arg("step") = 1);
  m.def("select", &select, arg("input"), arg("dim"), arg("index"));
  m.def("narrow", &narrow, arg("input"), arg("dim"), arg("start"), arg("length"));
  m.def("diagonal", &diagonal, arg("input"), arg("offset") = 0, arg("dim1") = 0, arg("dim2") = 1);
  m.def("flatten", &flatten, arg("input"), arg("start_dim") = 0, arg("end_dim") = -1);
  m.def(
      "unflatten",
      [](const Tensor& x, int64_t d, nb::handle s) {
        return unflatten(x, d, as_shape(s, "unflatten"));
      },
      arg("input"), arg("dim"), arg("sizes"));
  m.def("as_strided", &as_strided, arg("input"), arg("size"), arg("stride"), arg("offset"));
  m.def("split", &split, arg("input"), arg("split_size"), arg("dim") = 0);
  m.def("split_sizes", &split_sizes, arg("input"), arg("sizes"), arg("dim") = 0);
  m.def("chunk", &chunk, arg("input"), arg("chunks"), arg("dim") = 0);
  m.def("unbind", &unbind, arg("input"), arg("dim") = 0);

  // Copies. The Python layer normalises dims / shifts / sizes to lists of ints.
  m.def("cat", &cat, arg("tensors"), arg("dim") = 0);
  m.def("stack", &stack, arg("tensors"), arg("dim") = 0);
  m.def("hstack", &hstack, arg("tensors"));
  m.def("vstack", &vstack, arg("tensors"));
  m.def("flip", &flip, arg("input"), arg("dims"));
  m.def("roll", &roll, arg("input"), arg("shifts"), arg("dims"));
  m.def("repeat", &repeat, arg("input"), arg("repeats"));
  m.def("tile", &tile, arg("input"), arg("dims"));
  m.def("repeat_interleave",
        nb::overload_cast<const Tensor&, int64_t, std::optional<int64_t>>(&repeat_interleave),
        arg("input"), arg("repeats"), arg("dim").none() = nb::none());
  m.def("repeat_interleave_tensor",
        nb::overload_cast<const Tensor&, const Tensor&, std::optional<int64_t>>(&repeat_interleave),
        arg("input"), arg("repeats"), arg("dim").none() = nb::none());
  m.def("tril", &tril, arg("input"), arg("diagonal") = 0);
  m.def("triu", &triu, arg("input"), arg("diagonal") = 0);
  m.def("diag", &diag, arg("input"), arg("diagonal") = 0);
  m.def("pad", &pad, arg("input"), arg("pad"), arg("mode") = "constant", arg("value") = 0.0);
}

}  // namespace tandem::py
