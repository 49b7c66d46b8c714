// Activation folding: a relu that is the only reader of a conv2d's output becomes part of
// the convolution call (a oneDNN post-op), and one reading only a batch_norm's output joins
// the normalization's output pass, so the output is written once, already activated.
// Sigmoid and tanh stay separate: measured on LeNet's convolutions, oneDNN's logistic
// post-op ran on the channel-padded blocked output and was 2.6x slower than conv + our
// sigmoid (conv1, 256x1x28x28 -> 6 channels); the conv kernel still accepts them.
// In the backward pass, a relu_backward whose only reader is a batch_norm_backward (the
// gradient of relu(batch_norm(x)), ResNet's every block) joins it: the normalization's
// backward applies the relu mask to grad_out as it reads it, one pass over the activations
// fewer.
#include "tandem/graph/passes.h"

namespace tandem::graph {

void fold_activation(Graph& g) {
  std::vector<int> uses(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (int64_t v : n.inputs) uses[size_t(v)]++;
  for (int64_t v : g.outputs) uses[size_t(v)]++;
  for (auto& w : g.writebacks) uses[size_t(w.second)]++;
  std::vector<int64_t> producer(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int64_t o : g.nodes[i].outputs) producer[size_t(o)] = int64_t(i);

  std::vector<bool> drop(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& act = g.nodes[i];
    const std::string& name = act.op->name;
    if (name != "relu" || act.inputs.size() != 1) continue;
    int64_t v = act.inputs[0], p = producer[size_t(v)];
    if (p < 0 || uses[size_t(v)] != 1) continue;
    Node& prod = g.nodes[size_t(p)];
    const bool folds = prod.op->name == "conv2d" || prod.op->name == "batch_norm";
    if (!folds || prod.attrs.has("activation") || prod.outputs[0] != v) continue;
    const Value &cv = g.values[size_t(v)], &av = g.values[size_t(act.outputs[0])];
    if (cv.dtype != av.dtype || cv.shape != av.shape) continue;
    prod.attrs.set("activation", name);
    prod.outputs[0] = act.outputs[0];
    drop[i] = true;
  }
  std::vector<int64_t> reader(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int64_t v : g.nodes[i].inputs) reader[size_t(v)] = int64_t(i);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& rb = g.nodes[i];
    if (drop[i] || rb.op->name != "relu_backward" || rb.inputs.size() != 2) continue;
    const int64_t v = rb.outputs[0], r = reader[size_t(v)];
    if (uses[size_t(v)] != 1 || r < 0) continue;
    Node& bn = g.nodes[size_t(r)];
    if (bn.op->name != "batch_norm_backward" || bn.inputs[0] != v ||
        bn.attrs.get_bool_or("relu_mask", false))
      continue;
    const DType dt = g.values[size_t(v)].dtype;
    if (g.values[size_t(rb.inputs[0])].dtype != dt || g.values[size_t(rb.inputs[1])].dtype != dt ||
        g.values[size_t(bn.inputs[1])].dtype != dt ||
        g.values[size_t(rb.inputs[0])].shape != g.values[size_t(v)].shape ||
        g.values[size_t(rb.inputs[1])].shape != g.values[size_t(v)].shape)
      continue;
    bn.inputs[0] = rb.inputs[0];
    bn.inputs.push_back(rb.inputs[1]);
    bn.attrs.set("relu_mask", true);
    drop[i] = true;
  }
  std::vector<Node> nodes;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) nodes.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(nodes);
}

}  // namespace tandem::graph
