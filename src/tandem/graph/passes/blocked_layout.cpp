// Channel-blocked layout propagation. oneDNN's convolutions on AVX-512 run on activations
// in the nChw16c layout (ops/layout.h); a convolution on plain NCHW tensors reorders its
// input in and its output out, and its backward passes do the same for the gradients: in a
// ResNet-18 training step, 25 ms of activation reorders against ~170 ms of convolutions.
// This pass keeps the activations blocked from one convolution to the next: convolutions
// and their backward ops take and give blocked tensors, batch norms (forward and backward)
// max poolings and elementwise ops (the residual add, relu, relu_backward, gradient sums)
// follow their inputs into the blocked layout, and a conversion node stands only where a
// plain reader (an average pooling, a reduction, an output) or a plain producer meets the
// blocked region. A first convolution of 1-4 input channels takes them plain and gives a
// blocked output.
//
// A blocked value gets a twin id (the plain value's id stays for plain readers, defined by
// a from_channel_blocked node emitted just before its first plain reader), so outputs,
// write-backs and guards keep their ids. Runs after differentiation and activation folding,
// before elementwise fusion (which then fuses the blocked elementwise ops as any others).
#include <algorithm>

#include "tandem/graph/passes.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/layout.h"

namespace tandem::graph {
namespace {

constexpr int64_t L = kChannelBlock;

bool blockable_dtype(DType d) {
  return d == DType::Float32 || d == DType::BFloat16;
}

// An (N, C, H, W) activation oneDNN's blocked kernels take: C whole blocks, non-empty.
bool blockable(const Value& v) {
  const Shape& s = v.shape;
  return s.size() == 4 && blockable_dtype(v.dtype) && s[0] > 0 && s[1] > 0 && s[1] % L == 0 &&
         s[2] > 0 && s[3] > 0;
}

// A first layer's input (N, C <= 4, H, W), which a convolution takes in plain NCHW while its
// output is blocked (the "plain_input" attribute): in the blocked layout its few channels
// would be padded to a whole block.
bool few_channels(const Value& v) {
  const Shape& s = v.shape;
  return s.size() == 4 && blockable_dtype(v.dtype) && s[0] > 0 && s[1] > 0 && s[1] <= 4 &&
         s[2] > 0 && s[3] > 0;
}

bool plain_conv_attrs(const Node& n) {
  return !n.attrs.has("channel_block") && n.attrs.get_int("groups") == 1;
}

// Layout-free elementwise ops: the op family's pointwise kernels and casts.
bool is_pointwise(const Node& n) {
  return n.outputs.size() == 1 &&
         ((n.op->infer == ew_infer && n.op->kernel == ew_kernel) || n.op->name == "cast");
}

// A pointwise operand that broadcasts to any shape: a single element.
bool is_scalar(const Value& v) {
  int64_t n = 1;
  for (int64_t d : v.shape) n *= d;
  return n == 1 && v.shape.size() <= 4;
}

class Propagator {
 public:
  explicit Propagator(Graph& g) : g_(g), twin_(g.values.size(), -1), plain_(g.values.size(), 1) {}

  void run() {
    std::vector<Node> nodes = std::move(g_.nodes);
    g_.nodes.clear();
    for (Node& n : nodes) {
      if (!convert(n))
        for (int64_t v : n.inputs) ensure_plain(v);
      g_.nodes.push_back(std::move(n));
    }
    for (int64_t v : g_.outputs) ensure_plain(v);
    for (auto& w : g_.writebacks) ensure_plain(w.second);
  }

 private:
  const Value& val(int64_t v) const { return g_.values[size_t(v)]; }

  // The plain value v, converted back from its twin before the node being emitted.
  void ensure_plain(int64_t v) {
    if (plain_[size_t(v)]) return;
    g_.nodes.push_back(
        Node{find_op("from_channel_blocked"), {{"channel_block", L}}, {twin_[size_t(v)]}, {v}});
    plain_[size_t(v)] = 1;
  }

  // A new value: the blocked twin of plain value v.
  int64_t new_twin(int64_t v) {
    const Value& p = val(v);
    const int64_t b = g_.add_value(channel_blocked_shape(p.shape, L), p.dtype);
    twin_.push_back(-1);
    plain_.push_back(1);
    twin_[size_t(v)] = b;
    return b;
  }

  // v's blocked twin, converted from the plain value if it has none yet.
  int64_t blocked(int64_t v) {
    if (twin_[size_t(v)] >= 0) return twin_[size_t(v)];
    const int64_t b = new_twin(v);
    g_.nodes.push_back(Node{find_op("to_channel_blocked"), {{"channel_block", L}}, {v}, {b}});
    return b;
  }

  // Output k of n becomes blocked: its twin, while the plain value stays undefined until a
  // plain reader needs it.
  void block_output(Node& n, size_t k) {
    const int64_t v = n.outputs[k];
    n.outputs[k] = new_twin(v);
    plain_[size_t(v)] = 0;
  }

  bool has_twin(int64_t v) const { return twin_[size_t(v)] >= 0; }

  // A convolution's input x (input 0): blocked, or plain with the "plain_input" attribute.
  void take_input(Node& n, bool plain_in) {
    if (plain_in) {
      n.attrs.set("plain_input", true);
      ensure_plain(n.inputs[0]);
    } else {
      n.inputs[0] = blocked(n.inputs[0]);
    }
  }

  // Rewrites n into its blocked form where it has one and it pays; false leaves n as is.
  bool convert(Node& n) {
    const std::string& op = n.op->name;
    if (op == "conv2d") {
      if (!plain_conv_attrs(n) || n.inputs.size() < 2) return false;
      const Value &x = val(n.inputs[0]), &w = val(n.inputs[1]), &y = val(n.outputs[0]);
      const bool plain_in = few_channels(x);
      if (!(blockable(x) || plain_in) || !blockable(y) || w.dtype != x.dtype) return false;
      take_input(n, plain_in);
      for (size_t k = 1; k < n.inputs.size(); ++k) ensure_plain(n.inputs[k]);
      block_output(n, 0);
    } else if (op == "conv2d_backward_input") {
      if (!plain_conv_attrs(n)) return false;
      const Value &gy = val(n.inputs[0]), &gx = val(n.outputs[0]);
      const bool plain_in = few_channels(gx);
      if (!blockable(gy) || !(blockable(gx) || plain_in)) return false;
      n.inputs[0] = blocked(n.inputs[0]);
      ensure_plain(n.inputs[1]);
      if (plain_in)
        n.attrs.set("plain_input", true);
      else
        block_output(n, 0);
    } else if (op == "conv2d_backward_weight") {
      if (!plain_conv_attrs(n)) return false;
      const bool plain_in = few_channels(val(n.inputs[0]));
      if (!(blockable(val(n.inputs[0])) || plain_in) || !blockable(val(n.inputs[1]))) return false;
      take_input(n, plain_in);
      n.inputs[1] = blocked(n.inputs[1]);
    } else if (op == "batch_norm") {
      // Follows a blocked input only: a norm between plain ops stays plain.
      if (n.attrs.has("channel_block") || !blockable(val(n.inputs[0])) || !has_twin(n.inputs[0]))
        return false;
      n.inputs[0] = blocked(n.inputs[0]);
      for (size_t k = 1; k < n.inputs.size(); ++k) ensure_plain(n.inputs[k]);
      block_output(n, 0);
    } else if (op == "batch_norm_backward") {
      // Inputs: grad_out, input, [weight], mean, invstd, [relu_out].
      if (n.attrs.has("channel_block") || !blockable(val(n.inputs[1])) ||
          val(n.inputs[0]).shape != val(n.inputs[1]).shape ||
          !(has_twin(n.inputs[0]) || has_twin(n.inputs[1])))
        return false;
      const bool relu = n.attrs.get_bool_or("relu_mask", false);
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        if (k < 2 || (relu && k + 1 == n.inputs.size()))
          n.inputs[k] = blocked(n.inputs[k]);
        else
          ensure_plain(n.inputs[k]);
      }
      block_output(n, 0);
    } else if (op == "max_pool2d") {
      // Follows a blocked input only, as a batch norm does; its indices (within each
      // channel's plane either way) are blocked with its values.
      if (n.attrs.has("channel_block") || !blockable(val(n.inputs[0])) || !has_twin(n.inputs[0]))
        return false;
      n.inputs[0] = blocked(n.inputs[0]);
      block_output(n, 0);
      block_output(n, 1);
    } else if (op == "max_pool2d_backward") {
      // Inputs: grad_out, indices: blocked where the forward's indices are.
      if (n.attrs.has("channel_block") || !blockable(val(n.inputs[0])) || !has_twin(n.inputs[1]))
        return false;
      n.inputs[0] = blocked(n.inputs[0]);
      n.inputs[1] = blocked(n.inputs[1]);
      block_output(n, 0);
    } else if (is_pointwise(n)) {
      const Value& y = val(n.outputs[0]);
      if (!blockable(y)) return false;
      int with = 0, without = 0;
      for (int64_t v : n.inputs) {
        if (val(v).shape == y.shape)
          (has_twin(v) ? with : without)++;
        else if (!is_scalar(val(v)))
          return false;  // a broadcast operand (a per-channel bias) needs the plain layout
      }
      // Blocked when most full-size operands are: a conversion either way otherwise.
      if (with == 0 || with < without) return false;
      for (int64_t& v : n.inputs) {
        if (val(v).shape == y.shape)
          v = blocked(v);
        else
          ensure_plain(v);
      }
      block_output(n, 0);
      return true;  // the blocked shape says it all
    } else {
      return false;
    }
    n.attrs.set("channel_block", L);
    return true;
  }

  Graph& g_;
  std::vector<int64_t> twin_;  // blocked twin of a plain value, or -1
  std::vector<char> plain_;    // whether the plain value is defined so far
};

}  // namespace

void propagate_blocked_layout(Graph& g) {
  // Only where oneDNN's kernels use 16-channel blocks (AVX-512); guarded graphs are cut
  // into segments first, whose node counts the guards index.
  if (!cpu_use_avx512() || !g.guards.empty()) return;
  const bool any = std::any_of(g.nodes.begin(), g.nodes.end(), [&](const Node& n) {
    return n.op->name == "conv2d" || n.op->name == "conv2d_backward_input";
  });
  if (!any) return;
  Propagator(g).run();
}

}  // namespace tandem::graph
