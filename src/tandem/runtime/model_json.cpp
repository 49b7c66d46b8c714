// The graph JSON of the model file: writer and strict reader (model_format.h has the schema).
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "tandem/core/error.h"
#include "tandem/io/json.h"
#include "tandem/runtime/model_json.h"
#include "tandem/runtime/opset.h"

namespace tandem::runtime {

using io::json::Value;
using Kind = io::json::Value::Kind;

std::string sym_str(const SymInt& s) {
  if (!s.symbolic()) return std::to_string(s.add);
  std::string r = s.mul == 1 ? "" : s.mul == -1 ? "-" : std::to_string(s.mul);
  r += "N";
  if (s.add > 0) r += "+" + std::to_string(s.add);
  if (s.add < 0) r += std::to_string(s.add);
  return r;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (name == dtype_short_name(DType(i))) return DType(i);
  return std::nullopt;
}

namespace {

// --- writer ----------------------------------------------------------------------------------

void put_sym(std::string& out, const SymInt& s) {
  if (s.symbolic())
    io::json::append_string(out, sym_str(s));
  else
    out += std::to_string(s.add);
}

// Shortest round-trip form, always with a '.' or exponent so it reads back as a float.
void put_double(std::string& out, double d) {
  if (std::isnan(d)) return io::json::append_string(out, "nan");
  if (std::isinf(d)) return io::json::append_string(out, d > 0 ? "inf" : "-inf");
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  out += s;
}

const SymInt* sym_of(const ModelNode& n, const std::string& name, int64_t index) {
  for (const SymAttr& s : n.sym_attrs)
    if (s.name == name && s.index == index) return &s.value;
  return nullptr;
}

void put_attr(std::string& out, const ModelNode& n, const std::string& key, const AttrValue& v,
              const AttrSpec* spec) {
  std::visit(
      [&](auto&& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) {
          out += "null";
        } else if constexpr (std::is_same_v<X, bool>) {
          out += x ? "true" : "false";
        } else if constexpr (std::is_same_v<X, int64_t>) {
          if (spec && spec->is_dtype)
            io::json::append_string(out, dtype_short_name(DType(x)));
          else if (const SymInt* s = sym_of(n, key, -1))
            put_sym(out, *s);
          else
            out += std::to_string(x);
        } else if constexpr (std::is_same_v<X, double>) {
          put_double(out, x);
        } else if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
          out += '[';
          for (size_t i = 0; i < x.size(); ++i) {
            if (i) out += ',';
            const SymInt* s = sym_of(n, key, int64_t(i));
            if (s)
              put_sym(out, *s);
            else
              out += std::to_string(x[i]);
          }
          out += ']';
        } else {
          io::json::append_string(out, x);
        }
      },
      v);
}

void put_ids(std::string& out, const std::vector<int64_t>& ids) {
  out += '[';
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + std::to_string(ids[i]);
  out += ']';
}

void put_ports(std::string& out, const char* key, const std::vector<ModelGraph::Port>& ports) {
  out += ",\n\"";
  out += key;
  out += "\":[";
  for (size_t i = 0; i < ports.size(); ++i) {
    out += i ? "," : "";
    out += "{\"value\":" + std::to_string(ports[i].value) + ",\"name\":";
    io::json::append_string(out, ports[i].name);
    out += '}';
  }
  out += ']';
}

}  // namespace

std::string graph_to_json(const ModelGraph& g) {
  std::string out = "{\"batch\":" + std::to_string(g.batch) + ",\n\"values\":[";
  for (size_t i = 0; i < g.values.size(); ++i) {
    out += i ? ",\n[" : "\n[";
    io::json::append_string(out, dtype_short_name(g.values[i].dtype));
    out += ",[";
    for (size_t d = 0; d < g.values[i].shape.size(); ++d) {
      if (d) out += ',';
      put_sym(out, g.values[i].shape[d]);
    }
    out += "]]";
  }
  out += ']';
  put_ports(out, "inputs", g.inputs);
  put_ports(out, "outputs", g.outputs);
  out += ",\n\"constants\":[";
  for (size_t i = 0; i < g.constants.size(); ++i) {
    const auto& c = g.constants[i];
    out += i ? ",\n" : "\n";
    out += "{\"value\":" + std::to_string(c.value) + ",\"tensor\":";
    io::json::append_string(out, c.name);
    if (c.tensor.is_wrapped_number()) out += ",\"wrapped\":true";
    out += '}';
  }
  out += "],\n\"nodes\":[";
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ModelNode& n = g.nodes[i];
    const OpSpec* spec = find_op_spec(n.op->name);
    TANDEM_CHECK(spec, ValueError, "save_model: op '", n.op->name, "' is not in op-set version ",
                 kOpsetVersion, "; the runtime cannot run it");
    out += i ? ",\n{\"op\":" : "\n{\"op\":";
    io::json::append_string(out, n.op->name);
    out += ",\"inputs\":";
    put_ids(out, n.inputs);
    out += ",\"outputs\":";
    put_ids(out, n.outputs);
    if (!n.attrs.items().empty()) {
      out += ",\"attrs\":{";
      bool first = true;
      for (const auto& [k, v] : n.attrs.items()) {
        out += first ? "" : ",";
        first = false;
        io::json::append_string(out, k);
        out += ':';
        put_attr(out, n, k, v, find_attr_spec(*spec, k));
      }
      out += '}';
    }
    out += '}';
  }
  out += "]}\n";
  return out;
}

// --- reader ----------------------------------------------------------------------------------
namespace {

struct Reader {
  const std::string& where;  // "load_model: 'x.tdm': "

  template <typename... Args>
  [[noreturn]] void fail(const std::string& path, const Args&... args) const {
    throw_error<ValueError>(where, "graph ", path, ": ", args...);
  }
  const Value& member(const Value& obj, const char* key, const std::string& path) const {
    const Value* v = obj.find(key);
    if (!v) fail(path, "missing \"", key, "\"");
    return *v;
  }
  void expect(const Value& v, Kind k, const std::string& path) const {
    if (v.kind != k)
      fail(path, "expected a JSON ", io::json::kind_name(k), ", got a ",
           io::json::kind_name(v.kind));
  }
  void only_keys(const Value& obj, std::initializer_list<const char*> keys,
                 const std::string& path) const {
    for (const auto& [k, _] : obj.members) {
      bool known = false;
      for (const char* key : keys) known |= k == key;
      if (!known) fail(path, "unknown field \"", k, "\"");
    }
  }
  static bool is_float_literal(const Value& v) {
    return v.text.find_first_of(".eE") != std::string::npos;
  }
  int64_t integer(const Value& v, const std::string& path) const {
    if (v.kind != Kind::Number || is_float_literal(v))
      fail(path, "expected an integer, got ",
           v.kind == Kind::Number ? v.text : io::json::kind_name(v.kind));
    int64_t x = 0;
    auto r = std::from_chars(v.text.data(), v.text.data() + v.text.size(), x);
    if (r.ec != std::errc() || r.ptr != v.text.data() + v.text.size())
      fail(path, "integer ", v.text, " is out of range");
    return x;
  }
  double number(const Value& v, const std::string& path) const {
    if (v.kind == Kind::String) {
      if (v.text == "inf") return INFINITY;
      if (v.text == "-inf") return -INFINITY;
      if (v.text == "nan") return NAN;
      fail(path, "expected a number, got the string \"", v.text, "\"");
    }
    expect(v, Kind::Number, path);
    double d = 0;
    auto r = std::from_chars(v.text.data(), v.text.data() + v.text.size(), d);
    if (r.ec != std::errc() || r.ptr != v.text.data() + v.text.size())
      fail(path, "number ", v.text, " is out of range");
    return d;
  }
  // An integer or an affine batch expression such as "2N+1", in the format's bounds.
  SymInt sym(const Value& v, const std::string& path) const {
    SymInt r = sym_unchecked(v, path);
    if (r.mul < -kMaxSymMul || r.mul > kMaxSymMul || r.add < -kMaxModelInt || r.add > kMaxModelInt)
      fail(path, v.text, " is outside the format's range (",
           "|integers| <= 2^40, |batch coefficients| <= 2^24)");
    return r;
  }
  SymInt sym_unchecked(const Value& v, const std::string& path) const {
    if (v.kind != Kind::String) return {0, integer(v, path)};
    const std::string& s = v.text;
    size_t n = s.find('N');
    if (n == std::string::npos || s.find('N', n + 1) != std::string::npos)
      fail(path, "expected an integer or a batch expression like \"2N+1\", got \"", s, "\"");
    auto parse = [&](std::string_view t, int64_t& out) {
      auto r = std::from_chars(t.data(), t.data() + t.size(), out);
      return r.ec == std::errc() && r.ptr == t.data() + t.size();
    };
    SymInt r;
    std::string_view head(s.data(), n), tail(s.data() + n + 1, s.size() - n - 1);
    bool ok = true;
    if (head.empty() || head == "-")
      r.mul = head.empty() ? 1 : -1;
    else
      ok &= parse(head, r.mul);
    if (!tail.empty()) {
      ok &=
          (tail[0] == '+' || tail[0] == '-') && tail.size() > 1 && tail[1] != '+' && tail[1] != '-';
      if (ok && tail[0] == '+') tail.remove_prefix(1);
      ok &= ok && parse(tail, r.add);
    }
    if (!ok || r.mul == 0)
      fail(path, "malformed batch expression \"", s, "\" (expected forms: N, 2N, N+1, 4N-2)");
    return r;
  }
  int64_t id(const Value& v, size_t num_values, const std::string& path) const {
    int64_t x = integer(v, path);
    if (x < 0 || x >= int64_t(num_values))
      fail(path, "value id ", x, " is out of range (the graph has ", num_values, " values)");
    return x;
  }
};

}  // namespace

ModelGraph parse_graph_json(std::string_view text, const std::string& where,
                            const io::NamedTensors& tensors) {
  Value root;
  try {
    root = io::json::parse(text);
  } catch (const ValueError& e) {
    throw_error<ValueError>(where, "graph is ", e.what());
  }
  Reader rd{where};
  rd.expect(root, Kind::Object, "");
  rd.only_keys(root, {"batch", "values", "inputs", "outputs", "constants", "nodes"}, "");
  ModelGraph g;
  g.batch = rd.integer(rd.member(root, "batch", ""), "batch");
  if (g.batch < 1 || g.batch > kMaxBatch)
    rd.fail("batch", "must be in [1, ", kMaxBatch, "], got ", g.batch);

  const Value& values = rd.member(root, "values", "");
  rd.expect(values, Kind::Array, "values");
  for (size_t i = 0; i < values.items.size(); ++i) {
    std::string p = "values[" + std::to_string(i) + "]";
    const Value& v = values.items[i];
    rd.expect(v, Kind::Array, p);
    if (v.items.size() != 2) rd.fail(p, "expected [dtype, shape]");
    rd.expect(v.items[0], Kind::String, p + " dtype");
    auto dt = dtype_from_name(v.items[0].text);
    if (!dt) rd.fail(p, "unknown dtype \"", v.items[0].text, "\"");
    rd.expect(v.items[1], Kind::Array, p + " shape");
    ModelValue mv{*dt, {}};
    for (const Value& d : v.items[1].items) mv.shape.push_back(rd.sym(d, p + " shape"));
    g.values.push_back(std::move(mv));
  }
  const size_t nv = g.values.size();

  auto ports = [&](const char* key, std::vector<ModelGraph::Port>& out) {
    const Value& arr = rd.member(root, key, "");
    rd.expect(arr, Kind::Array, key);
    for (size_t i = 0; i < arr.items.size(); ++i) {
      std::string p = std::string(key) + "[" + std::to_string(i) + "]";
      const Value& e = arr.items[i];
      rd.expect(e, Kind::Object, p);
      rd.only_keys(e, {"value", "name"}, p);
      const Value& name = rd.member(e, "name", p);
      rd.expect(name, Kind::String, p + ".name");
      out.push_back({rd.id(rd.member(e, "value", p), nv, p + ".value"), name.text});
    }
  };
  ports("inputs", g.inputs);
  ports("outputs", g.outputs);

  std::unordered_map<std::string_view, const Tensor*> by_name;
  for (const auto& [name, t] : tensors) by_name.emplace(name, &t);
  std::unordered_map<std::string_view, int> used;
  const Value& consts = rd.member(root, "constants", "");
  rd.expect(consts, Kind::Array, "constants");
  for (size_t i = 0; i < consts.items.size(); ++i) {
    std::string p = "constants[" + std::to_string(i) + "]";
    const Value& e = consts.items[i];
    rd.expect(e, Kind::Object, p);
    rd.only_keys(e, {"value", "tensor", "wrapped"}, p);
    const Value& name = rd.member(e, "tensor", p);
    rd.expect(name, Kind::String, p + ".tensor");
    auto it = by_name.find(name.text);
    if (it == by_name.end())
      rd.fail(p, "names the tensor \"", name.text, "\", which the file lacks");
    if (used[it->first]++) rd.fail(p, "uses the tensor \"", name.text, "\" a second time");
    bool wrapped = false;
    if (const Value* w = e.find("wrapped")) {
      rd.expect(*w, Kind::Bool, p + ".wrapped");
      wrapped = w->boolean;
    }
    Tensor t = *it->second;
    if (wrapped) {
      if (t.dim() != 0) rd.fail(p, "a wrapped number must be 0-d, got ", shape_str(t.shape()));
      auto impl = std::make_shared<TensorImpl>(*t.impl());
      impl->wrapped_number = true;
      t = Tensor(impl);
    }
    g.constants.push_back({rd.id(rd.member(e, "value", p), nv, p + ".value"), name.text, t});
  }
  for (const auto& [name, t] : tensors)
    if (!used.count(name))
      throw_error<ValueError>(where, "tensor \"", name, "\" is not used by the graph");

  const Value& nodes = rd.member(root, "nodes", "");
  rd.expect(nodes, Kind::Array, "nodes");
  for (size_t i = 0; i < nodes.items.size(); ++i) {
    std::string p = "nodes[" + std::to_string(i) + "]";
    const Value& e = nodes.items[i];
    rd.expect(e, Kind::Object, p);
    rd.only_keys(e, {"op", "inputs", "outputs", "attrs"}, p);
    const Value& opname = rd.member(e, "op", p);
    rd.expect(opname, Kind::String, p + ".op");
    const OpSpec* spec = find_op_spec(opname.text);
    if (!spec)
      rd.fail(p, "op \"", opname.text, "\" is not in op-set version ", kOpsetVersion,
              " (written by a newer tandem, or corrupt)");
    ModelNode n;
    n.op = find_op(spec->name);
    if (!n.op) rd.fail(p, "op \"", spec->name, "\" is not built into this runtime");
    p += " (" + opname.text + ")";
    for (const char* key : {"inputs", "outputs"}) {
      const Value& arr = rd.member(e, key, p);
      rd.expect(arr, Kind::Array, p + "." + key);
      for (const Value& v : arr.items)
        (key[0] == 'i' ? n.inputs : n.outputs).push_back(rd.id(v, nv, p + "." + key));
    }
    if (const Value* attrs = e.find("attrs")) {
      rd.expect(*attrs, Kind::Object, p + ".attrs");
      for (const auto& [k, v] : attrs->members) {
        std::string ap = p + ".attrs." + k;
        const AttrSpec* a = find_attr_spec(*spec, k);
        if (!a) rd.fail(ap, spec->name, " has no attribute \"", k, "\"");
        AttrValue av;
        if (v.kind == Kind::Null) {
          av = std::monostate{};
        } else if (v.kind == Kind::Bool) {
          av = v.boolean;
        } else if (a->is_dtype) {
          rd.expect(v, Kind::String, ap);
          auto dt = dtype_from_name(v.text);
          if (!dt) rd.fail(ap, "unknown dtype \"", v.text, "\"");
          av = int64_t(*dt);
        } else if (v.kind == Kind::Array) {
          std::vector<int64_t> xs;
          for (size_t j = 0; j < v.items.size(); ++j) {
            SymInt s = rd.sym(v.items[j], ap);
            if (s.symbolic()) n.sym_attrs.push_back({k, int64_t(j), s});
            xs.push_back(s.at(g.batch));
          }
          av = std::move(xs);
        } else if (v.kind == Kind::String && (a->types & kAttrStr)) {
          av = v.text;
        } else if ((a->types & kAttrFloat) &&
                   (v.kind == Kind::String || Reader::is_float_literal(v))) {
          av = rd.number(v, ap);
        } else {
          SymInt s = rd.sym(v, ap);
          if (s.symbolic()) n.sym_attrs.push_back({k, -1, s});
          av = s.at(g.batch);
        }
        n.attrs.set(k, std::move(av));
      }
    }
    check_node(*spec, n.attrs, n.inputs.size(), n.outputs.size(), where + "graph " + p + ": ");
    g.nodes.push_back(std::move(n));
  }
  return g;
}

}  // namespace tandem::runtime
