#include "tandem/runtime/model_format.h"

#include <charconv>
#include <sstream>

#include "tandem/core/error.h"
#include "tandem/io/safetensors.h"
#include "tandem/runtime/model_json.h"
#include "tandem/runtime/opset.h"

namespace tandem::runtime {
namespace {

constexpr const char* kFormatName = "tandem.model";

// Rethrows the exception in flight with `prefix` before its message, keeping its category
// (and turning anything else, such as std::bad_alloc, into a ValueError).
[[noreturn]] void rethrow_with(const std::string& prefix) {
  try {
    throw;
  } catch (const TypeError& e) {
    throw TypeError(prefix + e.what());
  } catch (const IndexError& e) {
    throw IndexError(prefix + e.what());
  } catch (const std::exception& e) {
    throw ValueError(prefix + e.what());
  }
}

// A storage-less tensor of the declared type, for infer and view functions.
Tensor meta_tensor(const Shape& shape, DType dtype) {
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

std::string type_str(DType dt, const Shape& s) {
  return std::string(dtype_short_name(dt)) + shape_str(s);
}

// Checks each node's declared output types against what its op computes from its inputs.
void check_types(const graph::Graph& g, const std::vector<std::string>& const_names,
                 const std::string& where) {
  std::vector<Tensor> env(g.values.size());
  for (int64_t v : g.inputs)
    env[size_t(v)] = meta_tensor(g.values[size_t(v)].shape, g.values[size_t(v)].dtype);
  for (size_t i = 0; i < g.captures.size(); ++i) {
    const auto& [v, impl] = g.captures[i];
    const graph::Value& want = g.values[size_t(v)];
    TANDEM_CHECK(impl->dtype == want.dtype && impl->shape == want.shape, ValueError, where,
                 "tensor \"", const_names[i], "\" is ", type_str(impl->dtype, impl->shape),
                 " but the graph declares value ", v, " as ", type_str(want.dtype, want.shape));
    env[size_t(v)] = Tensor(impl);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& n = g.nodes[i];
    std::string at = detail::cat(where, "node ", i, " (", n.op->name, "): ");
    std::vector<TensorMeta> metas;
    try {
      std::vector<Tensor> ins;
      for (int64_t v : n.inputs) {
        const Tensor& t = env[size_t(v)];
        // View functions see storage-less stand-ins, so they compute geometry only.
        ins.push_back(n.op->view ? meta_tensor(t.shape(), t.dtype()) : t);
      }
      if (n.op->view) {
        Tensor out = n.op->view(*n.op, ins, n.attrs);
        metas.push_back({out.shape(), out.dtype()});
      } else {
        metas = n.op->infer(*n.op, ins, n.attrs);
      }
    } catch (...) {
      rethrow_with(at);
    }
    TANDEM_CHECK(metas.size() == n.outputs.size(), ValueError, at, "the op computes ", metas.size(),
                 " outputs, the node lists ", n.outputs.size());
    for (size_t k = 0; k < metas.size(); ++k) {
      const graph::Value& want = g.values[size_t(n.outputs[k])];
      TANDEM_CHECK(metas[k].shape == want.shape && metas[k].dtype == want.dtype, ValueError, at,
                   "output ", k, " (value ", n.outputs[k], ") is declared ",
                   type_str(want.dtype, want.shape), " but its inputs give ",
                   type_str(metas[k].dtype, metas[k].shape));
      env[size_t(n.outputs[k])] = meta_tensor(want.shape, want.dtype);
    }
  }
}

int parse_version(const io::Metadata& md, const char* key, int supported,
                  const std::string& where) {
  auto it = md.find(key);
  TANDEM_CHECK(it != md.end(), ValueError, where, "metadata lacks \"", key, "\"");
  int v = 0;
  const std::string& s = it->second;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  TANDEM_CHECK(r.ec == std::errc() && r.ptr == s.data() + s.size() && v >= 1, ValueError, where,
               "metadata \"", key, "\" is \"", s, "\", not a version number");
  TANDEM_CHECK(v <= supported, ValueError, where, key, " ", v,
               " was written by a newer tandem; this build reads up to ", supported,
               " (upgrade tandem or re-export the model)");
  return v;
}

ModelFile from_parts(io::NamedTensors tensors, const io::Metadata& md, const std::string& where) {
  auto fmt = md.find("format");
  TANDEM_CHECK(fmt != md.end() && fmt->second == kFormatName, ValueError, where,
               "not a tandem model file (its safetensors metadata has no \"format\": \"",
               kFormatName, "\"; a checkpoint loads with load_checkpoint)");
  ModelFile m;
  m.format_version = parse_version(md, "format_version", kFormatVersion, where);
  m.opset_version = parse_version(md, "opset_version", kOpsetVersion, where);
  auto prod = md.find("producer");
  if (prod != md.end()) m.producer = prod->second;
  auto log = md.find("export_log");
  if (log != md.end()) m.export_log = log->second;
  auto graph = md.find("graph");
  TANDEM_CHECK(graph != md.end(), ValueError, where, "metadata lacks \"graph\"");
  m.graph = parse_graph_json(graph->second, where, tensors);
  m.graph.instantiate(m.graph.batch);  // checks definitions and every node's types
  return m;
}

template <typename F>
ModelFile load_with(const std::string& where, F load) {
  std::pair<io::NamedTensors, io::Metadata> parts;
  try {
    parts = load();
  } catch (const io::IoError&) {
    throw;
  } catch (...) {
    rethrow_with("load_model: ");
  }
  return from_parts(std::move(parts.first), parts.second, where);
}

}  // namespace

bool ModelGraph::dynamic() const {
  for (const ModelValue& v : values)
    for (const SymInt& d : v.shape)
      if (d.symbolic()) return true;
  for (const ModelNode& n : nodes)
    if (!n.sym_attrs.empty()) return true;
  return false;
}

graph::Graph ModelGraph::instantiate(int64_t n) const {
  const std::string where = "model: ";
  TANDEM_CHECK(n == batch || dynamic(), ValueError, where, "the model was exported for batch size ",
               batch, ", got batch size ", n, "; export it with dynamic=True to run other sizes");
  TANDEM_CHECK(n >= 1 && n <= kMaxBatch, ValueError, where, "batch size ", n,
               " is out of range [1, ", kMaxBatch, "]");
  graph::Graph g;
  for (size_t i = 0; i < values.size(); ++i) {
    Shape s;
    int64_t elems = 1;
    for (const SymInt& d : values[i].shape) {
      int64_t x = d.at(n);
      TANDEM_CHECK(x >= 0 && x <= kMaxModelInt, ValueError, where, "value ", i, " has dimension ",
                   sym_str(d), " = ", x, " at batch size ", n, ", outside [0, 2^40]");
      TANDEM_CHECK(!__builtin_mul_overflow(elems, std::max<int64_t>(x, 1), &elems) &&
                       elems <= kMaxValueBytes / int64_t(itemsize(values[i].dtype)),
                   ValueError, where, "value ", i, " would exceed 2^40 bytes");
      s.push_back(x);
    }
    g.values.push_back({std::move(s), values[i].dtype});
  }
  for (const Port& p : inputs) g.inputs.push_back(p.value);
  std::vector<std::string> const_names;
  for (const Constant& c : constants) {
    g.captures.emplace_back(c.value, c.tensor.impl_shared());
    const_names.push_back(c.name);
  }
  for (const ModelNode& mn : nodes) {
    graph::Node node{mn.op, mn.attrs, mn.inputs, mn.outputs};
    for (const SymAttr& s : mn.sym_attrs) {
      if (s.index < 0) {
        node.attrs.set(s.name, s.value.at(n));
      } else {
        std::vector<int64_t> xs = node.attrs.get_ints(s.name);
        TANDEM_CHECK(s.index < int64_t(xs.size()), ValueError, where, "internal: attribute ",
                     s.name, "[", s.index, "] out of range");
        xs[size_t(s.index)] = s.value.at(n);
        node.attrs.set(s.name, std::move(xs));
      }
    }
    g.nodes.push_back(std::move(node));
  }
  for (const Port& p : outputs) g.outputs.push_back(p.value);
  try {
    g.verify();
  } catch (...) {
    rethrow_with(where);
  }
  std::vector<bool> defined(g.values.size(), false);
  for (int64_t v : g.inputs) defined[size_t(v)] = true;
  for (auto& c : g.captures) defined[size_t(c.first)] = true;
  for (const graph::Node& nd : g.nodes)
    for (int64_t v : nd.outputs) defined[size_t(v)] = true;
  for (size_t v = 0; v < defined.size(); ++v)
    TANDEM_CHECK(defined[v], ValueError, where, "value ", v, " is never defined");
  check_types(g, const_names, where);
  return g;
}

std::string ModelGraph::str() const {
  auto type = [&](int64_t v) {
    std::string s = dtype_short_name(values[size_t(v)].dtype);
    s += "[";
    for (size_t d = 0; d < values[size_t(v)].shape.size(); ++d)
      s += (d ? ", " : "") + sym_str(values[size_t(v)].shape[d]);
    return s + "]";
  };
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < inputs.size(); ++i)
    os << (i ? ", " : "") << "%" << inputs[i].value << ": " << type(inputs[i].value);
  os << ")\n";
  for (const Constant& c : constants)
    os << "  %" << c.value << " = constant \"" << c.name << "\" : " << type(c.value) << "\n";
  for (const ModelNode& n : nodes) {
    os << "  ";
    for (size_t k = 0; k < n.outputs.size(); ++k) os << (k ? ", " : "") << "%" << n.outputs[k];
    os << " = " << n.op->name << "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << "%" << n.inputs[k];
    os << ")";
    std::string a = n.attrs.str();
    if (!a.empty()) os << " {" << a << "}";
    for (const SymAttr& s : n.sym_attrs)
      os << " {" << s.name << (s.index >= 0 ? "[" + std::to_string(s.index) + "]" : "") << "="
         << sym_str(s.value) << "}";
    os << " : ";
    for (size_t k = 0; k < n.outputs.size(); ++k) os << (k ? ", " : "") << type(n.outputs[k]);
    os << "\n";
  }
  os << "  return ";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << "%" << outputs[i].value;
  os << "\n";
  return os.str();
}

void save_model(const std::string& path, const ModelFile& m) {
  try {
    m.graph.instantiate(m.graph.batch);
  } catch (...) {
    rethrow_with("save_model: the graph does not check: ");
  }
  io::NamedTensors tensors;
  for (const auto& c : m.graph.constants) tensors.emplace_back(c.name, c.tensor);
  io::Metadata md{{"format", kFormatName},
                  {"format_version", std::to_string(kFormatVersion)},
                  {"opset_version", std::to_string(kOpsetVersion)},
                  {"producer", m.producer.empty() ? "tandem" : m.producer},
                  {"graph", graph_to_json(m.graph)}};
  if (!m.export_log.empty()) md["export_log"] = m.export_log;
  io::save_safetensors(path, tensors, md);
}

ModelFile load_model(const std::string& path) {
  return load_with("load_model: '" + path + "': ", [&] { return io::load_safetensors(path); });
}

ModelFile parse_model(std::string_view bytes, const std::string& name) {
  return load_with("load_model: '" + name + "': ",
                   [&] { return io::load_safetensors_bytes(bytes, name); });
}

}  // namespace tandem::runtime
