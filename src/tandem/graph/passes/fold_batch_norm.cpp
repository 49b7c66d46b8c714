// Batch-norm folding for frozen inference graphs: an eval-mode batch_norm is a per-channel
// affine map y = (x - mean) * s + beta with s = gamma / sqrt(var + eps), so when x comes
// from a conv2d (channels = dim 1 of its output, dim 0 of its weight) or a linear layer
// (matmul by a constant [in, out] matrix, then an optional constant bias; channels = the
// last dim) that feeds nothing else, the map moves into that layer's weight and bias and
// the normalization disappears.
#include <unordered_map>

#include "tandem/autograd/autograd.h"
#include "tandem/graph/inference_passes.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::graph {
namespace {

struct Folder {
  Graph& g;
  std::unordered_map<int64_t, Tensor> constant;  // captured values
  std::vector<int> uses;
  std::vector<int64_t> producer;

  explicit Folder(Graph& graph) : g(graph) {
    for (auto& c : g.captures) constant.emplace(c.first, Tensor(c.second));
    uses.assign(g.values.size(), 0);
    producer.assign(g.values.size(), -1);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (int64_t v : g.nodes[i].inputs) uses[size_t(v)]++;
      for (int64_t v : g.nodes[i].outputs) producer[size_t(v)] = int64_t(i);
    }
    for (int64_t v : g.outputs) uses[size_t(v)]++;
    for (auto& w : g.writebacks) uses[size_t(w.second)]++;
  }
  const Tensor* const_of(int64_t v) const {
    auto it = constant.find(v);
    return it == constant.end() ? nullptr : &it->second;
  }
  // The node producing v for v's only reader, else null.
  Node* sole_producer(int64_t v) {
    int64_t p = producer[size_t(v)];
    if (p < 0 || uses[size_t(v)] != 1) return nullptr;
    return &g.nodes[size_t(p)];
  }
  int64_t add_constant(const Tensor& t) {
    int64_t v = g.add_value(t.shape(), t.dtype());
    g.captures.emplace_back(v, t.contiguous().impl_shared());
    constant.emplace(v, t);
    return v;
  }
};

// The batch norm's per-channel scale s and shift (beta - mean * s), in float64.
struct Affine {
  Tensor scale, shift;
};

std::optional<Affine> bn_affine(const Folder& f, const Node& bn) {
  if (bn.attrs.get_bool("training") || bn.attrs.has("activation")) return std::nullopt;
  size_t k = 1;
  const Tensor *w = nullptr, *b = nullptr;
  if (bn.attrs.get_bool("has_weight") && !(w = f.const_of(bn.inputs[k++]))) return std::nullopt;
  if (bn.attrs.get_bool("has_bias") && !(b = f.const_of(bn.inputs[k++]))) return std::nullopt;
  if (bn.inputs.size() != k + 2) return std::nullopt;
  const Tensor *mean = f.const_of(bn.inputs[k]), *var = f.const_of(bn.inputs[k + 1]);
  if (!mean || !var) return std::nullopt;
  auto f64 = [](const Tensor& t) { return reshape(to_dtype(t, DType::Float64), {t.numel()}); };
  Tensor inv = rsqrt(add(f64(*var), scalar_tensor(Scalar(bn.attrs.get_float("eps")))));
  Tensor s = w ? mul(f64(*w), inv) : inv;
  Tensor shift = neg(mul(f64(*mean), s));
  if (b) shift = add(shift, f64(*b));
  return Affine{s, shift};
}

// New bias: (old - mean) * s + beta = old * s + shift.
Tensor folded_bias(const Tensor* old, const Affine& a, DType dt) {
  Tensor b = a.shift;
  if (old) b = add(mul(reshape(to_dtype(*old, DType::Float64), {old->numel()}), a.scale), b);
  return to_dtype(b, dt);
}

std::string fold_into_conv(Folder& f, Node& bn, Node& conv, const Affine& a) {
  const Tensor* w = f.const_of(conv.inputs[1]);
  const Tensor* b = conv.inputs.size() > 2 ? f.const_of(conv.inputs[2]) : nullptr;
  if (!w || (conv.inputs.size() > 2 && !b) || conv.attrs.has("activation")) return "";
  const int64_t O = w->shape()[0];
  if (a.scale.numel() != O) return "";
  Tensor nw =
      to_dtype(mul(to_dtype(*w, DType::Float64), reshape(a.scale, {O, 1, 1, 1})), w->dtype());
  conv.inputs = {conv.inputs[0], f.add_constant(nw), f.add_constant(folded_bias(b, a, w->dtype()))};
  std::string line = "batch_norm %" + std::to_string(bn.outputs[0]) + " folded into conv2d %" +
                     std::to_string(conv.outputs[0]);
  conv.outputs[0] = bn.outputs[0];
  return line;
}

// x -> matmul(h, W) [-> add(., bias)] -> batch_norm, W a constant [in, out].
std::string fold_into_linear(Folder& f, Node& bn, Node& last, const Affine& a) {
  Node* mm = &last;
  Node* bias_add = nullptr;
  const Tensor* bias = nullptr;
  if (last.op->name == "add" && last.inputs.size() == 2 &&
      last.attrs.get_float_or("alpha", 1) == 1) {
    bias = f.const_of(last.inputs[1]);
    mm = f.sole_producer(last.inputs[0]);
    if (!bias || !mm || bias->dim() != 1) return "";
    bias_add = &last;
  }
  if (mm->op->name != "matmul") return "";
  const Tensor* w = f.const_of(mm->inputs[1]);
  const int64_t C = a.scale.numel();
  if (!w || w->dim() != 2 || w->shape()[1] != C || (bias && bias->numel() != C)) return "";
  DType dt = w->dtype();
  Tensor nw = to_dtype(mul(to_dtype(*w, DType::Float64), reshape(a.scale, {1, C})), dt);
  mm->inputs[1] = f.add_constant(nw);
  int64_t nb = f.add_constant(folded_bias(bias, a, dt));
  std::string line = "batch_norm %" + std::to_string(bn.outputs[0]) + " folded into linear %" +
                     std::to_string(last.outputs[0]);
  if (bias_add) {
    bias_add->inputs[1] = nb;
    bias_add->outputs[0] = bn.outputs[0];
  } else {  // the batch norm becomes the bias add
    bn = Node{find_op("add"), {}, {mm->outputs[0], nb}, {bn.outputs[0]}};
    return line;
  }
  return line;
}

}  // namespace

std::vector<std::string> fold_batch_norm(Graph& g) {
  GradModeGuard no_grad(false);  // the weights may require grad; folding records nothing
  Folder f(g);
  std::vector<std::string> report;
  std::vector<bool> drop(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& bn = g.nodes[i];
    if (bn.op->name != "batch_norm") continue;
    // The statistics outputs must be unused: only y survives the fold.
    if (f.uses[size_t(bn.outputs[1])] || f.uses[size_t(bn.outputs[2])]) continue;
    Node* prod = f.sole_producer(bn.inputs[0]);
    if (!prod || !is_floating(g.values[size_t(bn.inputs[0])].dtype)) continue;
    auto a = bn_affine(f, bn);
    if (!a) continue;
    const Shape& xs = g.values[size_t(bn.inputs[0])].shape;
    std::string line;
    if (prod->op->name == "conv2d")
      line = fold_into_conv(f, bn, *prod, *a);
    else if (xs.size() == 2)
      line = fold_into_linear(f, bn, *prod, *a);
    if (line.empty()) continue;
    if (bn.op->name == "batch_norm") drop[i] = true;
    report.push_back(line);
  }
  std::vector<Node> nodes;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) nodes.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(nodes);
  return report;
}

}  // namespace tandem::graph
