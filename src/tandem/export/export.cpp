#include "tandem/export/export.h"

#include <cstring>
#include <map>
#include <unordered_map>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/graph/inference_passes.h"
#include "tandem/graph/tracer.h"
#include "tandem/runtime/opset.h"

namespace tandem::deploy {
namespace {

using graph::Graph;
using runtime::SymInt;

Graph trace_inference(const ExportFn& fn, const std::vector<Tensor>& examples) {
  GradModeGuard no_grad(false);
  graph::Tracer tracer;
  std::vector<Tensor> sym = tracer.begin(examples);
  std::vector<Tensor> outs = fn(sym);  // on error, ~Tracer stops tracing
  for (size_t i = 0; i < outs.size(); ++i)
    TANDEM_CHECK(outs[i].defined(), ValueError, "export: output ", i, " is undefined (None)");
  return tracer.finish(outs);
}

// Before the inference passes: the function must not update state, nor branch on values.
void check_pure(const Graph& g) {
  // A value read in Python picks one path at trace time; the file would hold that path only
  // and give wrong results for inputs that take another. Refused rather than guessed.
  if (!g.guards.empty()) {
    std::string where;
    for (size_t i = 0; i < g.guards.size() && i < 3; ++i)
      where += (i ? "; " : "") + g.guards[i].where;
    throw_error<ValueError>(
        "export: the function reads tensor values in Python (", g.guards.size(),
        where.empty() ? " read" : " read(s): ", where,
        "), so its graph depends on the example's values; express the choice with tensor ops "
        "(mint.where / ops.select, ops.cond) or make it a static Python value to export it");
  }
  TANDEM_CHECK(g.writebacks.empty(), ValueError, "export: the function updates ",
               g.writebacks.size(),
               " tensors in place (BatchNorm running statistics in training mode, an optimizer "
               "step, ...); export an inference function with the network in eval mode "
               "(net.set_train(False) / net.eval())");
  TANDEM_CHECK(g.grad_sets.empty(), ValueError,
               "export: the function assigns .grad (it runs backward()); export an inference "
               "function");
}

// After them: what is left must be deterministic and in the op-set.
void check_exportable(const Graph& g) {
  check_pure(g);
  for (const graph::Node& n : g.nodes) {
    TANDEM_CHECK(!n.op->stateful, ValueError, "export: the graph draws random numbers (",
                 n.op->name, " -> %", n.outputs[0],
                 "); an inference graph must be deterministic (is a dropout in training mode "
                 "or a random op in the function?)");
    TANDEM_CHECK(runtime::find_op_spec(n.op->name), ValueError, "export: op '", n.op->name,
                 "' (node ", g.node_str(size_t(&n - g.nodes.data())),
                 ") is not in the model op-set version ", runtime::kOpsetVersion,
                 ", so the runtime cannot run it");
  }
}

// Renumbers values densely in definition order: inputs, constants, node outputs.
Graph compact(const Graph& g) {
  std::vector<int64_t> id(g.values.size(), -1);
  Graph out;
  auto def = [&](int64_t v) {
    if (id[size_t(v)] < 0)
      id[size_t(v)] = out.add_value(g.values[size_t(v)].shape, g.values[size_t(v)].dtype);
    return id[size_t(v)];
  };
  for (int64_t v : g.inputs) out.inputs.push_back(def(v));
  for (auto& c : g.captures) out.captures.emplace_back(def(c.first), c.second);
  for (const graph::Node& n : g.nodes) {
    graph::Node m{n.op, n.attrs, {}, {}};
    for (int64_t v : n.inputs) m.inputs.push_back(id[size_t(v)]);
    for (int64_t v : n.outputs) m.outputs.push_back(def(v));
    out.nodes.push_back(std::move(m));
  }
  for (int64_t v : g.outputs) out.outputs.push_back(id[size_t(v)]);
  out.verify();
  return out;
}

struct Traced {
  Graph g;
  std::string log;
  int64_t batch;
};

Traced trace_at(const ExportFn& fn, const std::vector<Tensor>& examples, int64_t batch) {
  std::vector<Tensor> ex;
  for (const Tensor& e : examples) {
    Shape s = e.shape();
    s[0] = batch;
    ex.push_back(s == e.shape() ? e : Tensor::empty(s, e.dtype()));
  }
  Graph g = trace_inference(fn, ex);
  check_pure(g);
  std::string log = graph::optimize_for_inference(g);
  check_exportable(g);
  return {compact(g), log, batch};
}

[[noreturn]] void changes(int64_t b0, int64_t b1, const std::string& what) {
  throw_error<ValueError>("export(dynamic batch): the graph at batch size ", b1,
                          " differs from the one at ", b0, ": ", what,
                          ". Export with a fixed batch size, or keep batch-dependent Python "
                          "values out of the computation");
}

// The affine form of an integer seen at three batch sizes.
SymInt affine(const std::vector<Traced>& t, const std::vector<int64_t>& x,
              const std::string& what) {
  if (t.size() == 1) return {0, x[0]};
  SymInt s{x[1] - x[0], 0};
  s.add = x[0] - s.mul * t[0].batch;
  if (x[2] != s.at(t[2].batch))
    changes(t[0].batch, t[2].batch, what + " is not an affine function of the batch size");
  return s;
}

bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr(), y.data_ptr(), size_t(x.numel()) * x.itemsize()) == 0;
}

// Attrs of node i across the traces: concrete at the first, symbolic entries where they vary.
void unify_attrs(const std::vector<Traced>& t, size_t i, runtime::ModelNode& mn) {
  const Attrs& a0 = t[0].g.nodes[i].attrs;
  mn.attrs = a0;
  for (size_t k = 0; k < a0.items().size(); ++k) {
    const auto& [key, v0] = a0.items()[k];
    std::string what = "attribute " + key + " of node " + std::to_string(i) + " (" +
                       t[0].g.nodes[i].op->name + ")";
    std::vector<const AttrValue*> vs;
    for (const Traced& tr : t) {
      const auto& items = tr.g.nodes[i].attrs.items();
      if (items.size() != a0.items().size() || items[k].first != key ||
          items[k].second.index() != v0.index())
        changes(t[0].batch, tr.batch, what + " changes its form");
      vs.push_back(&items[k].second);
    }
    if (auto* x0 = std::get_if<int64_t>(&v0)) {
      std::vector<int64_t> xs;
      for (auto* v : vs) xs.push_back(std::get<int64_t>(*v));
      SymInt s = affine(t, xs, what);
      if (s.symbolic()) mn.sym_attrs.push_back({key, -1, s});
      (void)x0;
    } else if (auto* l0 = std::get_if<std::vector<int64_t>>(&v0)) {
      for (auto* v : vs)
        if (std::get<std::vector<int64_t>>(*v).size() != l0->size())
          changes(t[0].batch, t[1].batch, what + " changes length");
      for (size_t j = 0; j < l0->size(); ++j) {
        std::vector<int64_t> xs;
        for (auto* v : vs) xs.push_back(std::get<std::vector<int64_t>>(*v)[j]);
        SymInt s = affine(t, xs, what + "[" + std::to_string(j) + "]");
        if (s.symbolic()) mn.sym_attrs.push_back({key, int64_t(j), s});
      }
    } else {
      for (auto* v : vs)
        if (!(*v == v0)) changes(t[0].batch, t[1].batch, what + " changes its value");
    }
  }
}

runtime::ModelGraph unify(const std::vector<Traced>& t, const ExportOptions& opt) {
  const Graph& g0 = t[0].g;
  for (const Traced& tr : t) {
    const Graph& g = tr.g;
    if (g.values.size() != g0.values.size() || g.nodes.size() != g0.nodes.size() ||
        g.captures.size() != g0.captures.size() || g.inputs != g0.inputs || g.outputs != g0.outputs)
      changes(t[0].batch, tr.batch, "it has a different structure");
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].op != g0.nodes[i].op || g.nodes[i].inputs != g0.nodes[i].inputs ||
          g.nodes[i].outputs != g0.nodes[i].outputs)
        changes(t[0].batch, tr.batch, "node " + std::to_string(i) + " differs");
  }
  runtime::ModelGraph m;
  m.batch = t[0].batch;
  for (size_t v = 0; v < g0.values.size(); ++v) {
    runtime::ModelValue mv{g0.values[v].dtype, {}};
    for (const Traced& tr : t)
      if (tr.g.values[v].dtype != mv.dtype ||
          tr.g.values[v].shape.size() != g0.values[v].shape.size())
        changes(t[0].batch, tr.batch, "value %" + std::to_string(v) + " changes its dtype or rank");
    for (size_t d = 0; d < g0.values[v].shape.size(); ++d) {
      std::vector<int64_t> xs;
      for (const Traced& tr : t) xs.push_back(tr.g.values[v].shape[d]);
      mv.shape.push_back(
          affine(t, xs, "dim " + std::to_string(d) + " of value %" + std::to_string(v)));
    }
    m.values.push_back(std::move(mv));
  }
  for (size_t i = 0; i < g0.nodes.size(); ++i) {
    runtime::ModelNode mn;
    mn.op = g0.nodes[i].op;
    mn.inputs = g0.nodes[i].inputs;
    mn.outputs = g0.nodes[i].outputs;
    unify_attrs(t, i, mn);
    m.nodes.push_back(std::move(mn));
  }
  for (size_t i = 0; i < g0.inputs.size(); ++i)
    m.inputs.push_back({g0.inputs[i], i < opt.input_names.size() ? opt.input_names[i]
                                                                 : "input" + std::to_string(i)});
  for (size_t i = 0; i < g0.outputs.size(); ++i)
    m.outputs.push_back({g0.outputs[i], i < opt.output_names.size()
                                            ? opt.output_names[i]
                                            : "output" + std::to_string(i)});
  std::unordered_map<const TensorImpl*, std::string> names;
  for (const auto& [tensor, name] : opt.names) names.emplace(tensor.impl(), name);
  std::map<std::string, int> taken;
  for (size_t c = 0; c < g0.captures.size(); ++c) {
    const auto& [v, impl] = g0.captures[c];
    for (const Traced& tr : t)
      if (!same_tensor(Tensor(tr.g.captures[c].second), Tensor(impl)))
        changes(t[0].batch, tr.batch,
                "constant %" + std::to_string(v) + " depends on the batch size");
    auto it = names.find(impl.get());
    std::string name = it != names.end() ? it->second : "const." + std::to_string(v);
    if (taken[name]++) name += "." + std::to_string(v);  // the same tensor captured twice
    Tensor t0(impl);
    if (!impl->wrapped_number) t0 = t0.contiguous();
    m.constants.push_back({v, name, t0});
  }
  return m;
}

}  // namespace

runtime::ModelFile export_model(const ExportFn& fn, const std::vector<Tensor>& examples,
                                const ExportOptions& opt) {
  TANDEM_CHECK(!graph::Tracer::active(), ValueError,
               "export: called inside a traced (jit) function; export from eager code");
  for (size_t i = 0; i < examples.size(); ++i)
    TANDEM_CHECK(examples[i].defined(), ValueError, "export: example input ", i, " is None");
  std::vector<Traced> traces;
  int64_t b0 = 1;
  if (opt.dynamic_batch) {
    TANDEM_CHECK(!examples.empty(), ValueError,
                 "export(dynamic batch): the function takes no inputs");
    b0 = examples[0].dim() ? examples[0].shape()[0] : 0;
    for (size_t i = 0; i < examples.size(); ++i)
      TANDEM_CHECK(examples[i].dim() >= 1 && examples[i].shape()[0] == b0 && b0 >= 1, ValueError,
                   "export(dynamic batch): dim 0 of every input is the batch, but "
                   "input ",
                   i, " has shape ", shape_str(examples[i].shape()), " and input 0 ",
                   shape_str(examples[0].shape()));
    for (int64_t b : {b0, b0 + 1, b0 + 2}) traces.push_back(trace_at(fn, examples, b));
  } else {
    if (!examples.empty() && examples[0].dim() > 0)
      b0 = std::max<int64_t>(examples[0].shape()[0], 1);
    Graph g = trace_inference(fn, examples);
    check_pure(g);
    std::string log = graph::optimize_for_inference(g);
    check_exportable(g);
    traces.push_back({compact(g), log, b0});
  }
  runtime::ModelFile m;
  m.graph = unify(traces, opt);
  m.format_version = runtime::kFormatVersion;
  m.opset_version = runtime::kOpsetVersion;
  m.producer = opt.producer;
  m.export_log = traces[0].log;
  if (opt.dynamic_batch) {
    int dims = 0, attrs = 0;
    for (const auto& v : m.graph.values)
      for (const SymInt& d : v.shape) dims += d.symbolic();
    for (const auto& n : m.graph.nodes) attrs += int(n.sym_attrs.size());
    m.export_log += "dynamic batch: traced at batch sizes " + std::to_string(b0) + ", " +
                    std::to_string(b0 + 1) + ", " + std::to_string(b0 + 2) + "; " +
                    std::to_string(dims) + " dims and " + std::to_string(attrs) +
                    " attribute entries depend on N\n";
  }
  m.graph.instantiate(m.graph.batch);  // the runtime's checks, before anything is written
  return m;
}

}  // namespace tandem::deploy
