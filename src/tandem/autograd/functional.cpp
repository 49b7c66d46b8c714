// value_and_grad / grad over C++ callables, and Tensor::backward.
#include "tandem/autograd/autograd.h"
#include "tandem/autograd/node.h"
#include "tandem/core/error.h"
#include "tandem/ops/creation.h"

namespace tandem {

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  std::vector<Tensor> grads;
  if (gradient.defined()) grads.push_back(gradient);
  tandem::backward({*this}, grads, retain_graph, create_graph);
}

Differentiation differentiate(
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
    const std::vector<Tensor>& args, const std::vector<Tensor>& weights) {
  Differentiation d;
  const bool recording = is_grad_enabled();
  for (const Tensor& a : args) d.nested = d.nested || (recording && requires_grad(a));
  for (const Tensor& a : args) {
    if (recording && requires_grad(a)) {
      d.leaves.push_back(a);
    } else {
      Tensor leaf = detach(a);
      set_requires_grad(leaf, true);
      d.leaves.push_back(leaf);
    }
  }
  {
    GradModeGuard on(true);
    d.outputs = fn(d.leaves);
  }
  std::vector<Tensor> wrt = d.leaves;
  wrt.insert(wrt.end(), weights.begin(), weights.end());
  std::vector<Tensor> targets, ones;
  for (const Tensor& t : d.outputs)
    if (t.defined() && requires_grad(t)) {
      targets.push_back(t);
      ones.push_back(full(t.shape(), Scalar(1), t.dtype()));
    }
  if (!targets.empty() && !wrt.empty())
    d.grads = tandem::grad(targets, wrt, ones, d.nested, d.nested, true);
  d.grads.resize(wrt.size());
  for (size_t i = 0; i < wrt.size(); ++i)
    if (!d.grads[i].defined()) d.grads[i] = zeros(wrt[i].shape(), wrt[i].dtype());
  return d;
}

std::function<std::pair<Tensor, std::vector<Tensor>>(const std::vector<Tensor>&)> value_and_grad(
    DiffFn fn, std::vector<int> positions, std::vector<Tensor> weights) {
  return [fn = std::move(fn), positions = std::move(positions),
          weights = std::move(weights)](const std::vector<Tensor>& args) {
    std::vector<Tensor> diff;
    for (int p : positions) {
      TANDEM_CHECK(p >= 0 && p < int(args.size()), IndexError, "value_and_grad: grad_position ", p,
                   " is out of range for ", args.size(), " arguments");
      diff.push_back(args[size_t(p)]);
    }
    Differentiation d = differentiate(
        [&](const std::vector<Tensor>& leaves) {
          std::vector<Tensor> xs = args;
          for (size_t i = 0; i < positions.size(); ++i) xs[size_t(positions[i])] = leaves[i];
          Tensor out = fn(xs);
          TANDEM_CHECK(out.numel() == 1, ValueError,
                       "value_and_grad: the function must return a one-element tensor, got shape ",
                       shape_str(out.shape()));
          return std::vector<Tensor>{out};
        },
        diff, weights);
    return std::make_pair(d.nested ? d.outputs[0] : detach(d.outputs[0]), d.grads);
  };
}

std::function<std::vector<Tensor>(const std::vector<Tensor>&)> grad(DiffFn fn,
                                                                    std::vector<int> positions,
                                                                    std::vector<Tensor> weights) {
  auto vg = value_and_grad(std::move(fn), std::move(positions), std::move(weights));
  return [vg](const std::vector<Tensor>& args) { return vg(args).second; };
}

// vjp_via_composite's body (ops/hooks.cpp forwards to it, since backward rules live in the
// runtime layer and this needs the engine).
std::vector<Tensor> autograd::composite_vjp(
    const VjpCtx& c, const std::vector<Tensor>& grads,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& composite) {
  std::vector<Tensor> leaves;
  std::vector<size_t> wanted;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    Tensor l = detach(c.inputs[i]);
    if (c.needs_grad[i] && is_floating(l.dtype())) {
      set_requires_grad(l, true);
      wanted.push_back(i);
    }
    leaves.push_back(l);
  }
  std::vector<Tensor> outs, gs, targets;
  {
    GradModeGuard on(true);
    outs = composite(leaves);
  }
  for (size_t k = 0; k < outs.size() && k < grads.size(); ++k)
    if (grads[k].defined() && requires_grad(outs[k])) {
      targets.push_back(outs[k]);
      gs.push_back(grads[k]);
    }
  std::vector<Tensor> result(c.inputs.size());
  if (targets.empty() || wanted.empty()) return result;
  std::vector<Tensor> ins;
  for (size_t i : wanted) ins.push_back(leaves[i]);
  std::vector<Tensor> r = tandem::grad(targets, ins, gs, false, is_grad_enabled(), true);
  for (size_t j = 0; j < wanted.size(); ++j) result[wanted[j]] = r[j];
  return result;
}

}  // namespace tandem
