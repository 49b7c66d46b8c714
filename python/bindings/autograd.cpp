// Autograd bindings: Tensor.requires_grad / grad / backward / hooks, grad mode, and
// autograd.grad. Python hooks run with the GIL held (backward itself releases nothing: it
// calls back into Python only through hooks).
#include <nanobind/stl/function.h>

#include "common.h"
#include "tandem/autograd/autograd.h"

namespace tandem::py {

void bind_autograd(nb::module_& m, nb::class_<Tensor>& cls) {
  using nb::arg;
  cls.def_prop_rw(
      "requires_grad", [](const Tensor& t) { return requires_grad(t); },
      [](const Tensor& t, bool v) { set_requires_grad(t, v); },
      "Whether gradients are computed for this tensor.");
  cls.def(
      "requires_grad_",
      [](nb::handle self, bool v) {
        set_requires_grad(nb::cast<const Tensor&>(self), v);
        return nb::borrow(self);
      },
      arg("requires_grad") = true);
  cls.def_prop_rw(
      "grad",
      [](const Tensor& t) -> nb::object {
        Tensor g = grad(t);
        return g.defined() ? nb::cast(g) : nb::none();
      },
      [](const Tensor& t, nb::handle g) {
        set_grad(t, g.is_none() ? Tensor() : nb::cast<Tensor>(g));
      },
      nb::for_getter(nb::sig("def grad(self, /) -> typing.Optional[Tensor]")),
      nb::for_setter(nb::sig("def grad(self, value: typing.Optional[Tensor], /) -> None")),
      nb::arg("value").none(), "The accumulated gradient (None until a backward reaches it).");
  cls.def_prop_ro("is_leaf", [](const Tensor& t) { return is_leaf(t); });
  cls.def_prop_ro("_grad_fn_name", [](const Tensor& t) { return grad_fn_name(t); });
  cls.def(
      "_backward",
      [](const Tensor& t, std::optional<Tensor> g, bool retain, bool create) {
        std::vector<Tensor> grads;
        if (g) grads.push_back(*g);
        backward({t}, grads, retain, create);
      },
      arg("gradient").none(), arg("retain_graph"), arg("create_graph"));
  cls.def(
      "detach", [](const Tensor& t) { return detach(t); },
      "A tensor sharing this one's data, without gradient history.");
  cls.def("detach_", [](nb::handle self) {
    detach_(nb::cast<const Tensor&>(self));
    return nb::borrow(self);
  });
  cls.def("retain_grad", [](const Tensor& t) { retain_grad(t); });
  cls.def_prop_ro("retains_grad", [](const Tensor& t) { return retains_grad(t); });
  cls.def(
      "register_hook",
      [](const Tensor& t, nb::object fn) {
        std::shared_ptr<PyObject> holder = shared_py(fn);
        register_hook(t, [holder](const Tensor& g) -> Tensor {
          nb::gil_scoped_acquire gil;
          nb::object r = nb::handle(holder.get())(g);
          if (r.is_none()) return Tensor();
          Tensor out;
          if (!nb::try_cast<Tensor>(r, out))
            throw TypeError("a gradient hook must return a Tensor or None, got " +
                            std::string(nb::inst_name(r).c_str()));
          return out;
        });
        return nb::none();
      },
      arg("hook"),
      "hook(grad) runs when this tensor's gradient is computed; a returned "
      "tensor replaces the gradient.");
  cls.def(
      "register_post_accumulate_grad_hook",
      [](const Tensor& t, nb::object fn) {
        std::shared_ptr<PyObject> holder = shared_py(fn);
        register_post_accumulate_grad_hook(t, [holder](const Tensor& leaf) {
          nb::gil_scoped_acquire gil;
          nb::handle(holder.get())(leaf);
        });
        return nb::none();
      },
      arg("hook"),
      "hook(tensor) runs after a backward has accumulated this leaf's gradient into .grad.");

  m.def(
      "queue_backward_callback",
      [](nb::object fn) {
        std::shared_ptr<PyObject> holder = shared_py(fn);
        queue_backward_callback([holder] {
          nb::gil_scoped_acquire gil;
          nb::handle(holder.get())();
        });
      },
      arg("callback"), "Runs callback() once the backward running on this thread has finished.");
  m.def(
      "op_registry",
      [] {
        nb::list out;
        for (const OpDef* op : all_ops())
          out.append(nb::make_tuple(op->name, op->vjp != nullptr, op->non_differentiable));
        return out;
      },
      "(name, has_vjp, non_differentiable) for every registered op.");
  m.def(
      "differentiate",
      [](nb::callable fn, std::vector<Tensor> args, std::vector<Tensor> weights) {
        Differentiation d = differentiate(
            [&](const std::vector<Tensor>& leaves) {
              return nb::cast<std::vector<Tensor>>(fn(leaves));
            },
            args, weights);
        return std::make_pair(d.grads, d.nested);
      },
      arg("fn"), arg("args"), arg("weights"),
      "value_and_grad's core: fn(leaves) -> tensors; returns (the gradients of the sum of "
      "those tensors with respect to the leaves made from args, then to weights; nested).");
  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("set_grad_enabled", &set_grad_enabled, arg("mode"));
  m.def(
      "backward",
      [](std::vector<Tensor> roots, std::vector<std::optional<Tensor>> grads, bool retain,
         bool create) {
        std::vector<Tensor> g;
        for (auto& x : grads) g.push_back(x.value_or(Tensor()));
        backward(roots, g, retain, create);
      },
      arg("tensors"), arg("grad_tensors"), arg("retain_graph"), arg("create_graph"));
  m.def(
      "grad",
      [](std::vector<Tensor> outs, std::vector<Tensor> ins, std::vector<std::optional<Tensor>> gos,
         bool retain, bool create, bool unused) {
        std::vector<Tensor> g;
        for (auto& x : gos) g.push_back(x.value_or(Tensor()));
        std::vector<Tensor> r = grad(outs, ins, g, retain, create, unused);
        nb::list out;
        for (auto& t : r) out.append(t.defined() ? nb::cast(t) : nb::none());
        return out;
      },
      arg("outputs"), arg("inputs"), arg("grad_outputs"), arg("retain_graph"), arg("create_graph"),
      arg("allow_unused"));
}

}  // namespace tandem::py
