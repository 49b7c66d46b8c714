// Graph mode bindings: compile a Python function by tracing it, run the compiled graph.
#include <memory>
#include <string>

#include <nanobind/stl/shared_ptr.h>

#include "common.h"
#include "tandem/autograd/autograd.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/fused_jit.h"
#include "tandem/graph/jit.h"
#include "tandem/graph/tracer.h"

namespace tandem::py {
namespace {

// Python objects kept in the C++ cache; released with the GIL held.
std::shared_ptr<void> keep(nb::object obj) {
  return std::shared_ptr<void>(new nb::object(std::move(obj)), [](void* p) {
    nb::gil_scoped_acquire gil;
    delete static_cast<nb::object*>(p);
  });
}

std::vector<Tensor> tensor_args(const nb::sequence& seq) {
  std::vector<Tensor> out;
  for (nb::handle a : seq) out.push_back(nb::cast<const Tensor&>(a));
  return out;
}

// Python's view of tandem::JitCache. call() is @jit's common case in C++: all-tensor
// positional arguments whose signature has an unguarded graph returning a tensor or a flat
// tuple/list; anything else answers None and the Python path (tracing, guards, static
// arguments, nested results) handles the call through lookup() / insert().
class PyJitCache {
 public:
  nb::object call(nb::args args) {
    if (cache_.size() == 0 || graph::Tracer::active()) return nb::none();
    // Locals, not members: the run below releases the GIL, so another thread may call in.
    std::vector<Tensor> ins;
    ins.reserve(args.size());
    for (nb::handle a : args) {
      if (!nb::isinstance<Tensor>(a)) return nb::none();
      const Tensor& t = nb::cast<const Tensor&>(a);
      if (!t.defined()) return nb::none();
      ins.push_back(t);
    }
    std::shared_ptr<const JitEntry> e = cache_.find_direct(JitCache::key(ins, is_grad_enabled()));
    if (!e) return nb::none();
    std::vector<Tensor> outs;
    {
      nb::gil_scoped_release nogil;
      outs = e->exe->run(ins);
    }
    if (e->result_kind == 0) return nb::cast(std::move(outs[0]));
    nb::list l;
    for (Tensor& t : outs) l.append(nb::cast(std::move(t)));
    return e->result_kind == 1 ? nb::object(nb::tuple(l)) : nb::object(l);
  }

  // The payload of the first entry for these tensors and static arguments whose guards
  // hold, or None.
  nb::object lookup(const nb::sequence& tensors, int64_t static_id) const {
    const JitEntry* e =
        cache_.find(JitCache::key(tensor_args(tensors), is_grad_enabled(), static_id));
    if (!e) return nb::none();
    return *static_cast<nb::object*>(e->payload.get());
  }

  void insert(const nb::sequence& tensors, int64_t static_id,
              std::shared_ptr<graph::Executable> exe, nb::object payload, nb::object guard,
              int result_kind) {
    JitEntry e;
    e.exe = std::move(exe);
    e.payload = keep(std::move(payload));
    e.result_kind = result_kind;
    if (!guard.is_none()) {
      std::shared_ptr<void> g = keep(guard);
      e.guard = [g] { return nb::cast<bool>((*static_cast<nb::object*>(g.get()))()); };
    }
    cache_.insert(JitCache::key(tensor_args(tensors), is_grad_enabled(), static_id),
                  std::move(e));
  }

  size_t size() const { return cache_.size(); }
  size_t num_direct() const { return cache_.num_direct(); }

 private:
  JitCache cache_;
};

}  // namespace

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
  nb::class_<PyJitCache>(m, "JitCache")
      .def(nb::init<>())
      .def("call", &PyJitCache::call,
           "The compiled result for these arguments, or None when the Python path must run.")
      .def("lookup", &PyJitCache::lookup, arg("tensors"), arg("static_id"),
           "The payload of the first entry for this signature whose guards hold, or None.")
      .def("insert", &PyJitCache::insert, arg("tensors"), arg("static_id"), arg("exe"),
           arg("payload"), arg("guard").none(), arg("result_kind"),
           "Caches exe for this signature; guard() must return True for it to be used; "
           "result_kind 0/1/2 lets call() return the outputs as a tensor / tuple / list.")
      .def("num_direct", &PyJitCache::num_direct,
           "How many entries call() serves without the Python path.")
      .def("__len__", &PyJitCache::size);
  m.def("set_fused_codegen", &graph::set_fused_codegen, arg("on"),
        "Run fused kernels as generated code (True, the default) or interpreted (False).");
  m.def("fused_codegen_enabled", &graph::fused_codegen_enabled);
  m.def(
      "is_tracing", [] { return graph::Tracer::active() != nullptr; },
      "Whether a jit trace is being recorded on this thread.");
  m.def(
      "jit_compile",
      [](nb::callable fn, std::vector<Tensor> examples) {
        std::string before;
        graph::CostReport before_cost;
        auto exe = std::make_shared<graph::Executable>(graph::compile(
            [&](const std::vector<Tensor>& sym) {
              nb::object r = fn(sym);
              return nb::cast<std::vector<Tensor>>(r);
            },
            examples, &before, &before_cost));
        return std::make_tuple(exe, before, graph::cost_str(before_cost));
      },
      arg("fn"), arg("examples"),
      "Traces fn(list of symbolic tensors) -> list of tensors; returns (Executable, traced "
      "graph text before optimization, its cost summary).");
}

}  // namespace tandem::py
