#include "tandem/graph/ir.h"

#include <sstream>

#include "tandem/core/error.h"

namespace tandem::graph {

int64_t Graph::add_value(const Shape& shape, DType dtype) {
  check_ndim(shape, "jit");
  values.push_back({shape, dtype});
  return int64_t(values.size()) - 1;
}

void Graph::verify() const {
  std::vector<int> defined(values.size(), 0);
  auto def = [&](int64_t v, const char* what) {
    TANDEM_CHECK(v >= 0 && v < int64_t(values.size()), Error, "graph verify: ", what, " %", v,
                 " out of range");
    TANDEM_CHECK(!defined[size_t(v)], Error, "graph verify: %", v, " defined twice (", what, ")");
    defined[size_t(v)] = 1;
  };
  for (int64_t v : inputs) def(v, "input");
  for (auto& c : captures) def(c.first, "capture");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    TANDEM_CHECK(n.op, Error, "graph verify: node ", i, " has no op");
    for (int64_t v : n.inputs)
      TANDEM_CHECK(v >= 0 && v < int64_t(values.size()) && defined[size_t(v)], Error,
                   "graph verify: node ", i, " (", n.op->name, ") uses %", v,
                   " before it is defined");
    for (int64_t v : n.outputs) def(v, n.op->name.c_str());
  }
  for (int64_t v : outputs)
    TANDEM_CHECK(v >= 0 && v < int64_t(values.size()) && defined[size_t(v)], Error,
                 "graph verify: output %", v, " is not defined");
  for (auto& w : writebacks)
    TANDEM_CHECK(w.second >= 0 && w.second < int64_t(values.size()) && defined[size_t(w.second)],
                 Error, "graph verify: write-back of undefined %", w.second);
}

namespace {
std::string type_str(const Value& v) {
  return std::string(dtype_name(v.dtype)) + shape_str(v.shape);
}
}  // namespace

std::string Graph::str() const {
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < inputs.size(); ++i)
    os << (i ? ", " : "") << "%" << inputs[i] << ": " << type_str(values[size_t(inputs[i])]);
  os << ")\n";
  for (auto& c : captures)
    os << "  %" << c.first << " = captured : " << type_str(values[size_t(c.first)]) << "\n";
  for (size_t i = 0; i < nodes.size(); ++i) os << "  " << node_str(i) << "\n";
  for (auto& w : writebacks) os << "  write-back %" << w.second << "\n";
  os << "  return ";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << "%" << outputs[i];
  os << "\n";
  return os.str();
}

std::string Graph::node_str(size_t i) const {
  const Node& n = nodes.at(i);
  std::ostringstream os;
  for (size_t k = 0; k < n.outputs.size(); ++k) os << (k ? ", " : "") << "%" << n.outputs[k];
  os << " = " << n.op->name << "(";
  for (size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << "%" << n.inputs[k];
  os << ")";
  std::string a = n.attrs.str();
  if (!a.empty()) os << " {" << a << "}";
  os << " : ";
  for (size_t k = 0; k < n.outputs.size(); ++k)
    os << (k ? ", " : "") << type_str(values[size_t(n.outputs[k])]);
  return os.str();
}

}  // namespace tandem::graph
