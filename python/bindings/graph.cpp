// Graph mode bindings: compile a Python function by tracing it, run the compiled graph.
#include <string>
#include <unordered_map>

#include "common.h"
#include "tandem/autograd/autograd.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/fused_jit.h"
#include "tandem/graph/tracer.h"

namespace tandem::py {
namespace {

// JitFunction.__call__'s common case in C++: all-tensor positional arguments whose
// signature (shapes, dtypes, requires_grad, grad mode) has an unguarded compiled graph
// returning a tensor or a flat tuple/list of tensors. Anything else answers None and the
// Python path (tracing, guards, static arguments, nested results) handles the call.
class JitFastPath {
 public:
  nb::object call(nb::args args) {
    if (map_.empty() || graph::Tracer::active()) return nb::none();
    // Locals, not members: the run below releases the GIL, so another thread may call in.
    std::vector<Tensor> ins;
    ins.reserve(args.size());
    for (nb::handle a : args) {
      if (!nb::isinstance<Tensor>(a)) return nb::none();
      ins.push_back(nb::cast<const Tensor&>(a));
    }
    std::string key;
    if (!key_of(ins, is_grad_enabled(), key)) return nb::none();
    auto it = map_.find(key);
    if (it == map_.end()) return nb::none();
    const Entry e = it->second;  // a copy: add() may rehash the map meanwhile
    std::vector<Tensor> outs;
    {
      nb::gil_scoped_release nogil;
      outs = e.exe->run(ins);
    }
    if (e.kind == 0) return nb::cast(std::move(outs[0]));
    nb::list l;
    for (Tensor& t : outs) l.append(nb::cast(std::move(t)));
    return e.kind == 1 ? nb::object(nb::tuple(l)) : nb::object(l);
  }

  // Registers `exe` (a Python Executable) for the signature of these example tensors;
  // kind: 0 one tensor, 1 a tuple, 2 a list of its outputs in order.
  void add(const std::vector<Tensor>& examples, bool grad_enabled, nb::object exe, int kind) {
    std::string key;
    if (!key_of(examples, grad_enabled, key)) return;
    const graph::Executable* x = nb::cast<const graph::Executable*>(exe);
    map_[key] = Entry{std::move(exe), x, kind};
  }

  size_t size() const { return map_.size(); }

 private:
  struct Entry {
    nb::object exe_obj;  // keeps the Executable alive
    const graph::Executable* exe;
    int kind;
  };

  static bool key_of(const std::vector<Tensor>& args, bool grad, std::string& key) {
    key.clear();
    key.push_back(char(grad));
    for (const Tensor& t : args) {
      if (!t.defined()) return false;
      key.push_back(char(t.dtype()));
      key.push_back(char(requires_grad(t)));
      key.push_back(char(t.dim()));
      key.append(reinterpret_cast<const char*>(t.shape().data()),
                 t.shape().size() * sizeof(int64_t));
    }
    return true;
  }

  std::unordered_map<std::string, Entry> map_;
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
  nb::class_<JitFastPath>(m, "JitFastPath")
      .def(nb::init<>())
      .def("__call__", &JitFastPath::call,
           "The compiled result for these arguments, or None when the Python path must run.")
      .def("add", &JitFastPath::add, arg("examples"), arg("grad_enabled"), arg("exe"),
           arg("kind"))
      .def("__len__", &JitFastPath::size);
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
