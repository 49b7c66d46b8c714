// Optimizers: parameter groups with hyper-parameters, per-parameter state, and the update
// rules of PyTorch's torch.optim (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta) plus
// MindSpore's Momentum. Both Python faces (tandem.mint.optim and tandem.nn) drive these
// classes. Updates run in place through tandem ops with grad mode off, so graph mode can
// trace a training step later.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem::optim {

// Hyper-parameters by name (booleans are 0 / 1).
using Options = std::map<std::string, double>;

struct ParamGroup {
  std::vector<Tensor> params;
  Options options;
  // When defined, a 0-d tensor holding the learning rate, read at each update instead of
  // options["lr"] (a compiled step reads it by reference: MindSpore's dynamic rates).
  Tensor lr_tensor;
};

// What an optimizer keeps for one parameter: buffers (momentum, moments) and scalars
// (the step count).
struct ParamState {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, double> scalars;
  // The step count as a 0-d float64 tensor, made when a step is first traced: compiled
  // steps advance it, so once it exists it is the count (scalars["step"] is synced from it).
  Tensor step_tensor;
  bool empty() const { return tensors.empty() && scalars.empty(); }
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::string& name() const { return name_; }
  // Every option this optimizer knows, with its default (after the constructor's overrides).
  const Options& defaults() const { return defaults_; }

  // Adds a group; options it lacks take the defaults. Unknown keys, invalid values,
  // non-floating or non-leaf tensors and parameters already in a group are errors.
  void add_param_group(std::vector<Tensor> params, const Options& options = {});
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  int64_t num_groups() const { return int64_t(groups_.size()); }
  // Parameters over all groups.
  int64_t num_params() const;
  // Changes some options of group `group` (validated; used by lr schedulers and by the
  // Python faces, whose param_groups dicts are the user-visible copy).
  void set_options(int64_t group, const Options& options);
  double option(int64_t group, const std::string& key) const;
  // Makes group `group` read its learning rate from the 0-d floating tensor `lr` at each
  // update (an undefined tensor goes back to the lr option).
  void set_lr_tensor(int64_t group, const Tensor& lr);

  // One update of every parameter from its .grad; parameters without a grad are skipped.
  void step();
  // One update from explicit gradients, one per parameter in group order (MindSpore's
  // optimizer(grads)); an undefined gradient skips its parameter.
  void step_with(const std::vector<Tensor>& grads);
  // Clears the .grad of every parameter (or zeroes it in place when !set_to_none).
  void zero_grad(bool set_to_none = true);

  // The live state of the i-th parameter (group order).
  ParamState& state(int64_t index);
  // A copy of every parameter's state (group order; tensors cloned) for checkpointing.
  std::vector<ParamState> export_state() const;
  // Replaces the state with a copy of `state` (as export_state gives it); buffers must have
  // their parameter's shape and are converted to its dtype.
  void import_state(const std::vector<ParamState>& state);

 protected:
  Optimizer(std::string name, Options defaults, const Options& overrides);
  // Throws ValueError for an invalid combination of options.
  virtual void validate(const Options& o) const = 0;
  // Updates `param` in place from `grad`; grad mode is off.
  virtual void update(const Tensor& param, const Tensor& grad, ParamState& state,
                      const Options& o) = 0;
  // The learning-rate tensor of the group being updated (undefined: use o["lr"]).
  const Tensor& lr_tensor() const { return lr_tensor_; }

 private:
  Options merged(const Options& base, const Options& changes) const;
  void apply(const std::vector<Tensor>* grads);

  std::string name_;
  Options defaults_;
  std::vector<ParamGroup> groups_;
  std::vector<std::vector<ParamState>> state_;  // parallel to groups_[g].params
  Tensor lr_tensor_;
};

// Each concrete optimizer takes its groups (may be empty: add them later) and overrides of
// its defaults. Option names follow PyTorch (betas are beta1 / beta2).
#define TANDEM_DECLARE_OPTIMIZER(Cls)                                           \
  class Cls : public Optimizer {                                                \
   public:                                                                      \
    explicit Cls(std::vector<ParamGroup> groups, const Options& defaults = {}); \
    static Options default_options();                                           \
                                                                                \
   protected:                                                                   \
    void validate(const Options& o) const override;                             \
    void update(const Tensor& param, const Tensor& grad, ParamState& state,     \
                const Options& o) override;                                     \
  };

// lr, momentum, dampening, weight_decay, nesterov, maximize.
TANDEM_DECLARE_OPTIMIZER(SGD)
// lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, plus MindSpore's variants:
// nesterov, bias_correction (0: none, as AdamWeightDecay), raw_eps (1: eps is added to
// sqrt(v) before bias correction, as MindSpore's Adam). AdamW decouples the weight decay.
TANDEM_DECLARE_OPTIMIZER(Adam)
TANDEM_DECLARE_OPTIMIZER(AdamW)
// lr, alpha, eps, weight_decay, momentum, centered, maximize.
TANDEM_DECLARE_OPTIMIZER(RMSprop)
// lr, lr_decay, weight_decay, initial_accumulator_value, eps, maximize.
TANDEM_DECLARE_OPTIMIZER(Adagrad)
// lr, rho, eps, weight_decay, maximize.
TANDEM_DECLARE_OPTIMIZER(Adadelta)
// MindSpore's Momentum: lr, momentum, weight_decay, nesterov.
TANDEM_DECLARE_OPTIMIZER(Momentum)
#undef TANDEM_DECLARE_OPTIMIZER

// The optimizer called `name` ("SGD", "Adam", ...); ValueError for an unknown name.
std::unique_ptr<Optimizer> create(const std::string& name, std::vector<ParamGroup> groups,
                                  const Options& defaults = {});

}  // namespace tandem::optim
