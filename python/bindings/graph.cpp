// Graph mode bindings: compile a Python function by tracing it, run the compiled graph.
#include <memory>
#include <optional>
#include <string>

#include <nanobind/stl/shared_ptr.h>

#include "common.h"
#include "tandem/autograd/autograd.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/fused_jit.h"
#include "tandem/graph/jit.h"
#include "tandem/graph/tracer.h"
#include "tandem/ops/print_op.h"

namespace tandem::py {
namespace {

std::vector<Tensor> tensor_args(const nb::sequence& seq) {
  std::vector<Tensor> out;
  for (nb::handle a : seq) out.push_back(nb::cast<const Tensor&>(a));
  return out;
}

// "container[key] is expected" for (dict, key, expected), "fn.__globals__[key] is expected"
// for (weakref to fn, key, expected) and "cell holds expected" for (cell, None, expected)
// triples: the globals, closure cells and Cell attributes a trace read tensors from. A
// borrowed dict lookup per triple, cheap enough for every call. The pointers are borrowed
// from `triples`, which the cache keeps (and shows the garbage collector).
std::function<bool()> identity_guard(const nb::list& triples) {
  struct Check {
    PyObject *container, *key, *expected;
  };
  std::vector<Check> checks;
  for (nb::handle t : triples) {
    nb::tuple tr = nb::cast<nb::tuple>(t);
    checks.push_back({tr[0].ptr(), tr[1].ptr(), tr[2].ptr()});
  }
  return [checks = std::move(checks)] {
    for (const Check& c : checks) {
      PyObject* where = c.container;
      if (PyWeakref_Check(where)) {  // a function: its globals (held weakly: no cycle)
        PyObject* fn = PyWeakref_GetObject(where);
        if (!PyFunction_Check(fn)) return false;
        where = PyFunction_GET_GLOBALS(fn);
      }
      PyObject* cur;
      if (PyCell_Check(where)) {
        cur = PyCell_GET(where);
      } else {
        cur = PyDict_GetItemWithError(where, c.key);
        if (!cur && PyErr_Occurred()) PyErr_Clear();
      }
      if (cur != c.expected) return false;
    }
    return true;
  };
}

// Python's view of tandem::JitCache. call() is @jit's common case in C++: all-tensor
// positional arguments whose signature has an unguarded graph returning a tensor or a flat
// tuple/list; anything else answers None and the Python path (tracing, guards, static
// arguments, nested results, new paths) handles the call through run() / insert().
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
    std::string key = JitCache::key(ins, is_grad_enabled());
    const auto* list = cache_.entries(key);
    if (!list) return nb::none();
    // A copy: running releases the GIL, and another thread may change the cache meanwhile.
    std::vector<std::shared_ptr<const JitEntry>> direct;
    for (const auto& e : *list)
      if (e->result_kind >= 0 && e->unguarded() && !e->run_eagerly && e->take.empty())
        direct.push_back(e);
    for (const auto& e : direct) {
      if (!e->holds()) continue;
      std::optional<std::vector<Tensor>> outs = try_run(*e, ins);
      if (!outs) continue;  // a value guard failed: another path may hold
      cache_.promote(key, e.get());
      if (e->result_kind == 0) return nb::cast(std::move((*outs)[0]));
      nb::list l;
      for (Tensor& t : *outs) l.append(nb::cast(std::move(t)));
      return e->result_kind == 1 ? nb::object(nb::tuple(l)) : nb::object(l);
    }
    return nb::none();
  }

  // The Python path: (payload, outputs) of the first entry for this signature whose guards
  // hold and whose path matches the values (outputs None: the caller runs the function
  // eagerly), or None when no path matches (the caller traces a new one).
  nb::object run(const nb::sequence& tensors, int64_t static_id) {
    std::vector<Tensor> all = tensor_args(tensors);
    std::string key = JitCache::key(all, is_grad_enabled(), static_id);
    for (const auto& e : cache_.candidates(key)) {
      nb::handle payload(static_cast<PyObject*>(e->payload.get()));
      if (e->run_eagerly) return nb::make_tuple(payload, nb::none());
      std::vector<Tensor> ins;
      if (e->take.empty()) {
        ins = all;
      } else {
        for (int64_t i : e->take) ins.push_back(all[size_t(i)]);
      }
      std::optional<std::vector<Tensor>> outs = try_run(*e, ins);
      if (!outs) continue;
      cache_.promote(key, e.get());
      return nb::make_tuple(payload, nb::cast(std::move(*outs)));
    }
    return nb::none();
  }

  size_t count(const nb::sequence& tensors, int64_t static_id) const {
    return cache_.count(JitCache::key(tensor_args(tensors), is_grad_enabled(), static_id));
  }

  const std::string& last_failure() const { return last_failure_; }

  // The cache owns the Python objects in held_ alone (entries borrow them), so the garbage
  // collector sees every reference (traverse) and can break cycles through it (clear).
  void insert(const nb::sequence& tensors, int64_t static_id,
              std::shared_ptr<graph::Executable> exe, nb::object payload, nb::object guard,
              int result_kind, const nb::list& same_objects, std::vector<int64_t> take,
              bool run_eagerly) {
    JitEntry e;
    e.exe = std::move(exe);
    e.take = std::move(take);
    e.run_eagerly = run_eagerly;
    e.payload = std::shared_ptr<void>(payload.ptr(), [](void*) {});
    held_.push_back(std::move(payload));
    e.result_kind = result_kind;
    if (same_objects.size() > 0) {
      e.cheap_guard = identity_guard(same_objects);
      held_.push_back(same_objects);
    }
    if (!guard.is_none()) {
      e.guard = [g = guard.ptr()] {
        nb::handle h(g);
        return nb::cast<bool>(h());
      };
      held_.push_back(std::move(guard));
    }
    cache_.insert(JitCache::key(tensor_args(tensors), is_grad_enabled(), static_id), std::move(e));
  }

  size_t size() const { return cache_.size(); }
  size_t num_direct() const { return cache_.num_direct(); }

  // The garbage collector's view: the cache holds Python objects (payloads, guards, the
  // globals dicts its identity guards read), which may refer back to the function owning it.
  int traverse(visitproc visit, void* arg) const {
    for (const nb::object& o : held_) Py_VISIT(o.ptr());
    return 0;
  }
  void clear() {
    cache_ = JitCache();
    held_.clear();
  }

 private:
  // Runs e's graph with the GIL released; nothing when one of its value guards fails.
  std::optional<std::vector<Tensor>> try_run(const JitEntry& e, const std::vector<Tensor>& ins) {
    try {
      nb::gil_scoped_release nogil;
      return e.exe->run(ins);
    } catch (const graph::GuardFailed& f) {
      last_failure_ = f.where;
      return std::nullopt;
    }
  }

  JitCache cache_;
  std::vector<nb::object> held_;  // every Python object the entries reference
  std::string last_failure_;      // where the last failed guard read its value
};

int jit_cache_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<PyJitCache>(self)->traverse(visit, arg);
}

int jit_cache_clear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<PyJitCache>(self)->clear();
  return 0;
}

PyType_Slot jit_cache_slots[] = {{Py_tp_traverse, (void*)jit_cache_traverse},
                                 {Py_tp_clear, (void*)jit_cache_clear},
                                 {0, nullptr}};

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
      .def_prop_ro("graph_text", &graph::Executable::text)
      .def_prop_ro("num_guards", &graph::Executable::num_guards,
                   "How many values Python read while tracing (the path depends on them).")
      .def_prop_ro(
          "guards",
          [](const graph::Executable& e) {
            nb::list out;
            for (const auto& gd : e.graph().guards)
              out.append(nb::make_tuple(gd.where, gd.expected));
            return out;
          },
          "(where, value read) of each guard the path depends on, in order.")
      .def_prop_ro("num_kernels", &graph::Executable::num_kernels)
      .def_prop_ro("cost_text",
                   [](const graph::Executable& e) {
                     std::string a = e.arena_text();
                     return graph::cost_str(e.cost()) + (a.empty() ? "" : "; " + a);
                   })
      .def_prop_ro("outputs_require_grad", &graph::Executable::outputs_require_grad)
      .def("grad_guards_hold", &graph::Executable::grad_guards_hold)
      .def_prop_ro("has_grad_guards",
                   [](const graph::Executable& e) { return !e.graph().grad_guards.empty(); })
      .def_prop_ro("num_inplace_writebacks", &graph::Executable::num_inplace_writebacks)
      .def_prop_ro(
          "num_argument_writes",
          [](const graph::Executable& e) { return e.graph().input_writes.size(); },
          "How many arguments the function writes in place (copied back after each call).");
  nb::class_<PyJitCache>(m, "JitCache", nb::type_slots(jit_cache_slots))
      .def(nb::init<>())
      .def("call", &PyJitCache::call,
           "The compiled result for these arguments, or None when the Python path must run.")
      .def("run", &PyJitCache::run, arg("tensors"), arg("static_id"),
           "(payload, outputs) of the first entry whose guards and path hold (outputs None: "
           "run eagerly), or None when the caller must trace a new path.")
      .def("count", &PyJitCache::count, arg("tensors"), arg("static_id"),
           "How many paths this signature has.")
      .def_prop_ro("last_failure", &PyJitCache::last_failure,
                   "Where the last failed value guard read its value.")
      .def("insert", &PyJitCache::insert, arg("tensors"), arg("static_id"), arg("exe"),
           arg("payload"), arg("guard").none(), arg("result_kind"), arg("same_objects"),
           arg("take"), arg("run_eagerly"),
           "Caches exe for this signature; guard() must return True for it to be used; "
           "result_kind 0/1/2 lets call() return the outputs as a tensor / tuple / list; "
           "same_objects: (dict or cell, key, object) triples that must still hold.")
      .def("num_direct", &PyJitCache::num_direct,
           "How many entries call() serves without the Python path.")
      .def("__len__", &PyJitCache::size);
  m.def("set_fused_codegen", &graph::set_fused_codegen, arg("on"),
        "Run fused kernels as generated code (True, the default) or interpreted (False).");
  m.def("fused_codegen_enabled", &graph::fused_codegen_enabled);
  m.def(
      "set_print_hook",
      [](nb::callable fn) {
        fn.inc_ref();  // lives as long as the process: print nodes may run at any time
        set_print_hook([f = fn.ptr()](int64_t id, const std::vector<Tensor>& values) {
          nb::gil_scoped_acquire gil;
          nb::handle h(f);
          h(id, values);
        });
      },
      arg("fn"), "fn(format_id, tensors) is what every print node calls when it runs.");
  m.def(
      "print_values",
      [](std::vector<Tensor> values, int64_t format) { print_values(values, format); },
      arg("values"), arg("format"),
      "Prints through a print node (recorded while tracing, run now otherwise).");
  m.def(
      "jit_aliases",
      [](const nb::sequence& tensors) { return JitCache::aliases(tensor_args(tensors)); },
      arg("tensors"),
      "Per tensor: -1 (no alias), j (the same view as argument j) or -2 - j (overlaps "
      "argument j's memory).");
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
