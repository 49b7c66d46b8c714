// Graph mode bindings: compile a Python function by tracing it, run the compiled graph.
#include "common.h"
#include "tandem/autograd/autograd.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/fused_jit.h"
#include "tandem/graph/tracer.h"

namespace tandem::py {

void bind_graph(nb::module_& m) {
  using nb::arg;
  nb::class_<graph::Executable>(m, "Executable")
      .def(
          "__call__",
          [](const graph::Executable& e, std::vector<Tensor> args) {
            nb::gil_scoped_release nogil;
            return e.run(args);
          },
          arg("args"))
      .def(
          "profile",
          [](const graph::Executable& e, std::vector<Tensor> args, int reps) {
            std::vector<double> t;
            {
              nb::gil_scoped_release nogil;
              t = e.profile(args, reps);
            }
            std::vector<std::pair<std::string, double>> rows;
            for (size_t i = 0; i < t.size(); ++i) rows.emplace_back(e.graph().node_str(i), t[i]);
            return rows;
          },
          arg("args"), arg("reps") = 10,
          "Median seconds per node over reps runs: [(node text, seconds)] in node order.")
      .def_prop_ro("graph_text", [](const graph::Executable& e) { return e.graph().str(); })
      .def_prop_ro("num_kernels", &graph::Executable::num_kernels)
      .def_prop_ro("cost_text",
                   [](const graph::Executable& e) {
                     std::string a = graph::arena_str(e.memory_plan());
                     return graph::cost_str(graph::estimate_cost(e.graph(), true)) +
                            (a.empty() ? "" : "; " + a);
                   })
      .def_prop_ro("outputs_require_grad", &graph::Executable::outputs_require_grad)
      .def("grad_guards_hold", &graph::Executable::grad_guards_hold)
      .def_prop_ro("has_grad_guards",
                   [](const graph::Executable& e) { return !e.graph().grad_guards.empty(); })
      .def_prop_ro("num_inplace_writebacks", &graph::Executable::num_inplace_writebacks);
  // The cache key of one tensor argument: ("T", shape, dtype name, requires_grad).
  auto tensor_key = [](const Tensor& t) {
    nb::list shape;
    for (int64_t d : t.shape()) shape.append(d);
    return nb::make_tuple("T", nb::tuple(shape), dtype_name(t.dtype()), requires_grad(t));
  };
  m.def("set_fused_codegen", &graph::set_fused_codegen, arg("on"),
        "Run fused kernels as generated code (True, the default) or interpreted (False).");
  m.def("fused_codegen_enabled", &graph::fused_codegen_enabled);
  m.def("jit_tensor_key", tensor_key, arg("tensor"),
        "A jit cache key for a tensor argument: ('T', shape, dtype name, requires_grad).");
  m.def(
      "jit_signature",
      [tensor_key](nb::args args) -> nb::object {
        nb::list keys;
        for (nb::handle a : args) {
          if (!nb::isinstance<Tensor>(a)) return nb::none();
          keys.append(tensor_key(nb::cast<const Tensor&>(a)));
        }
        return nb::tuple(keys);
      },
      "The cache keys of all-tensor arguments (None if one is not a tensor).");
  m.def(
      "is_tracing", [] { return graph::Tracer::active() != nullptr; },
      "Whether a jit trace is being recorded on this thread.");
  m.def(
      "jit_compile",
      [](nb::callable fn, std::vector<Tensor> examples) {
        std::string before;
        graph::CostReport before_cost;
        graph::Executable exe = graph::compile(
            [&](const std::vector<Tensor>& sym) {
              nb::object r = fn(sym);
              return nb::cast<std::vector<Tensor>>(r);
            },
            examples, &before, &before_cost);
        return std::make_tuple(std::move(exe), before, graph::cost_str(before_cost));
      },
      arg("fn"), arg("examples"),
      "Traces fn(list of symbolic tensors) -> list of tensors; returns (Executable, traced "
      "graph text before optimization, its cost summary).");
}

}  // namespace tandem::py
