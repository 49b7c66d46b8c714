// value_and_grad / grad over C++ callables, and Tensor::backward.
#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"

namespace tandem {

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  std::vector<Tensor> grads;
  if (gradient.defined()) grads.push_back(gradient);
  tandem::backward({*this}, grads, retain_graph, create_graph);
}

std::function<std::pair<Tensor, std::vector<Tensor>>(const std::vector<Tensor>&)> value_and_grad(
    DiffFn fn, std::vector<int> positions, std::vector<Tensor> weights) {
  return [fn = std::move(fn), positions = std::move(positions),
          weights = std::move(weights)](const std::vector<Tensor>& args) {
    std::vector<Tensor> xs = args;
    std::vector<Tensor> inputs;
    for (int p : positions) {
      TANDEM_CHECK(p >= 0 && p < int(args.size()), IndexError, "value_and_grad: grad_position ", p,
                   " is out of range for ", args.size(), " arguments");
      xs[size_t(p)] = detach(args[size_t(p)]);
      set_requires_grad(xs[size_t(p)], true);
      inputs.push_back(xs[size_t(p)]);
    }
    for (const Tensor& w : weights) inputs.push_back(w);
    Tensor out;
    {
      GradModeGuard on(true);
      out = fn(xs);
    }
    TANDEM_CHECK(out.numel() == 1, ValueError,
                 "value_and_grad: the function must return a one-element tensor, got shape ",
                 shape_str(out.shape()));
    std::vector<Tensor> grads;
    if (!inputs.empty() && requires_grad(out))
      grads = tandem::grad({out}, inputs, {}, false, false, true);
    grads.resize(inputs.size());
    return std::make_pair(detach(out), grads);
  };
}

std::function<std::vector<Tensor>(const std::vector<Tensor>&)> grad(DiffFn fn,
                                                                    std::vector<int> positions,
                                                                    std::vector<Tensor> weights) {
  auto vg = value_and_grad(std::move(fn), std::move(positions), std::move(weights));
  return [vg](const std::vector<Tensor>& args) { return vg(args).second; };
}

std::vector<Tensor> vjp_via_composite(
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
