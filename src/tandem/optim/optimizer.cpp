// The Optimizer base: groups, options, per-parameter state, step / step_with / zero_grad
// and state export for checkpoints. The update formulas live in optimizers.cpp.
#include "tandem/optim/optimizer.h"

#include <unordered_set>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/ops/elementwise.h"

namespace tandem::optim {

namespace {

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace

Optimizer::Optimizer(std::string name, Options defaults, const Options& overrides)
    : name_(std::move(name)), defaults_(std::move(defaults)) {
  defaults_ = merged(defaults_, overrides);
}

Options Optimizer::merged(const Options& base, const Options& changes) const {
  Options out = base;
  for (const auto& [key, value] : changes) {
    if (!defaults_.count(key)) {
      std::string known;
      for (const auto& kv : defaults_) known += (known.empty() ? "" : ", ") + kv.first;
      throw_error<ValueError>(name_, ": unknown option '", key, "'; known options: ", known);
    }
    out[key] = value;
  }
  return out;
}

void Optimizer::add_param_group(std::vector<Tensor> params, const Options& options) {
  Options o = merged(defaults_, options);
  validate(o);
  std::unordered_set<const TensorImpl*> seen;
  for (const ParamGroup& g : groups_)
    for (const Tensor& p : g.params) seen.insert(p.impl());
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    TANDEM_CHECK(p.defined(), TypeError, name_, ": parameter ", i, " of the group is None");
    TANDEM_CHECK(is_floating(p.dtype()), TypeError, name_,
                 ": can only optimize floating-point tensors, parameter ", i, " is ",
                 dtype_name(p.dtype()));
    TANDEM_CHECK(is_leaf(p), ValueError, name_, ": can't optimize a non-leaf tensor (parameter ", i,
                 "); optimize the leaf it was computed from, or detach it");
    TANDEM_CHECK(seen.insert(p.impl()).second, ValueError, name_, ": parameter ", i,
                 " appears more than once (in this group or an earlier one)");
  }
  state_.emplace_back(params.size());
  groups_.push_back({std::move(params), std::move(o)});
}

int64_t Optimizer::num_params() const {
  int64_t n = 0;
  for (const ParamGroup& g : groups_) n += int64_t(g.params.size());
  return n;
}

void Optimizer::set_options(int64_t group, const Options& options) {
  TANDEM_CHECK(group >= 0 && group < num_groups(), IndexError, name_, ": group index ", group,
               " out of range for ", num_groups(), " groups");
  Options o = merged(groups_[group].options, options);
  validate(o);
  groups_[group].options = std::move(o);
}

double Optimizer::option(int64_t group, const std::string& key) const {
  TANDEM_CHECK(group >= 0 && group < num_groups(), IndexError, name_, ": group index ", group,
               " out of range for ", num_groups(), " groups");
  auto it = groups_[group].options.find(key);
  TANDEM_CHECK(it != groups_[group].options.end(), ValueError, name_, ": unknown option '", key,
               "'");
  return it->second;
}

void Optimizer::step() {
  apply(nullptr);
}

void Optimizer::step_with(const std::vector<Tensor>& grads) {
  TANDEM_CHECK(int64_t(grads.size()) == num_params(), ValueError, name_, ": got ", grads.size(),
               " gradients for ", num_params(), " parameters; pass one per parameter, in order");
  apply(&grads);
}

void Optimizer::apply(const std::vector<Tensor>* grads) {
  // Validate every gradient before touching any parameter, so an error leaves the model
  // unchanged rather than half-updated.
  std::vector<Tensor> gs;
  gs.reserve(size_t(num_params()));
  size_t k = 0;
  for (const ParamGroup& g : groups_) {
    for (const Tensor& p : g.params) {
      Tensor gr = grads ? (*grads)[k] : grad(p);
      if (gr.defined()) {
        TANDEM_CHECK(gr.shape() == p.shape(), ValueError, name_, ": gradient ", k, " has shape ",
                     shape_str(gr.shape()), " but its parameter has shape ", shape_str(p.shape()));
        TANDEM_CHECK(is_floating(gr.dtype()), TypeError, name_, ": gradient ", k,
                     " must be floating point, got ", dtype_name(gr.dtype()));
      }
      gs.push_back(std::move(gr));
      ++k;
    }
  }
  GradModeGuard no_grad(false);
  k = 0;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    const ParamGroup& g = groups_[gi];
    for (size_t pi = 0; pi < g.params.size(); ++pi, ++k) {
      if (!gs[k].defined()) continue;
      // A gradient that carries history (create_graph) must not drag the update into it.
      Tensor gr = requires_grad(gs[k]) ? detach(gs[k]) : gs[k];
      lr_tensor_ = g.lr_tensor;
      update(g.params[pi], gr, state_[gi][pi], g.options);
    }
  }
  lr_tensor_ = Tensor();
}

void Optimizer::set_lr_tensor(int64_t group, const Tensor& lr) {
  TANDEM_CHECK(group >= 0 && group < num_groups(), IndexError, name_, ": parameter group ", group,
               " out of range (", num_groups(), " groups)");
  if (lr.defined())
    TANDEM_CHECK(lr.dim() == 0 && is_floating(lr.dtype()), ValueError, name_,
                 ": a learning-rate tensor must be a 0-d floating tensor, got ",
                 dtype_name(lr.dtype()), shape_str(lr.shape()));
  groups_[size_t(group)].lr_tensor = lr;
}

void Optimizer::zero_grad(bool set_to_none) {
  GradModeGuard no_grad(false);
  for (const ParamGroup& g : groups_) {
    for (const Tensor& p : g.params) {
      Tensor gr = grad(p);
      if (!gr.defined()) continue;
      if (set_to_none || requires_grad(gr)) {
        // A gradient with history can't be zeroed in place without recording; PyTorch
        // detaches it first. Replacing it keeps its graph intact for whoever holds it.
        set_grad(p, set_to_none ? Tensor() : fill_(Tensor::empty(gr.shape(), gr.dtype()), 0));
      } else {
        fill_(gr, 0);
      }
    }
  }
}

namespace {
// Compiled steps advance the step tensor only; bring the scalar up to date.
void sync_step(ParamState& s) {
  if (s.step_tensor.defined() && !s.step_tensor.is_symbolic())
    s.scalars["step"] = *static_cast<const double*>(s.step_tensor.data_ptr());
}
}  // namespace

ParamState& Optimizer::state(int64_t index) {
  TANDEM_CHECK(index >= 0 && index < num_params(), IndexError, name_, ": parameter index ", index,
               " out of range for ", num_params(), " parameters");
  for (auto& s : state_) {
    if (index < int64_t(s.size())) {
      sync_step(s[size_t(index)]);
      return s[size_t(index)];
    }
    index -= int64_t(s.size());
  }
  throw_error<Error>("internal: optimizer state index");
}

std::vector<ParamState> Optimizer::export_state() const {
  std::vector<ParamState> out;
  for (const auto& group_state : state_) {
    for (const ParamState& s : group_state) {
      ParamState c;
      c.scalars = s.scalars;
      if (s.step_tensor.defined()) {
        ParamState tmp;
        tmp.step_tensor = s.step_tensor;
        sync_step(tmp);
        c.scalars["step"] = tmp.scalars["step"];
      }
      for (const auto& [key, t] : s.tensors) c.tensors[key] = clone(t);
      out.push_back(std::move(c));
    }
  }
  return out;
}

void Optimizer::import_state(const std::vector<ParamState>& state) {
  TANDEM_CHECK(int64_t(state.size()) == num_params(), ValueError, name_,
               ": loaded state has entries for ", state.size(), " parameters, the optimizer has ",
               num_params());
  // Check everything first so a bad checkpoint leaves the current state untouched.
  size_t k = 0;
  for (const ParamGroup& g : groups_) {
    for (const Tensor& p : g.params) {
      for (const auto& [key, t] : state[k].tensors) {
        TANDEM_CHECK(t.defined(), ValueError, name_, ": state '", key, "' of parameter ", k,
                     " is None");
        TANDEM_CHECK(t.shape() == p.shape(), ValueError, name_, ": state '", key, "' of parameter ",
                     k, " has shape ", shape_str(t.shape()), " but the parameter has shape ",
                     shape_str(p.shape()));
      }
      ++k;
    }
  }
  GradModeGuard no_grad(false);
  k = 0;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    for (size_t pi = 0; pi < groups_[gi].params.size(); ++pi, ++k) {
      const Tensor& p = groups_[gi].params[pi];
      ParamState& old = state_[gi][pi];
      ParamState s;
      s.scalars = state[k].scalars;
      for (const auto& [key, t] : state[k].tensors) {
        // Existing buffers are overwritten, not replaced: compiled steps hold them.
        auto it = old.tensors.find(key);
        Tensor c = it != old.tensors.end() ? it->second : Tensor::empty(p.shape(), p.dtype());
        copy_(c, detach(t));
        s.tensors[key] = c;
      }
      s.step_tensor = old.step_tensor;
      if (s.step_tensor.defined()) {
        auto st = s.scalars.find("step");
        *static_cast<double*>(s.step_tensor.data_ptr()) = st != s.scalars.end() ? st->second : 0.0;
        s.step_tensor.storage()->bump_version();
      }
      state_[gi][pi] = std::move(s);
    }
  }
}

}  // namespace tandem::optim
