// The update rules. Each follows PyTorch's single-tensor implementation operation by
// operation (same order of rounding), using in-place ops so a step allocates only the
// temporaries PyTorch's own code does.
#include <cmath>

#include "tandem/core/error.h"
#include "tandem/graph/tracer.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/optim/optimizer.h"

namespace tandem::optim {

namespace {

const OpDef& op(const char* name) {
  const OpDef* o = find_op(name);
  TANDEM_CHECK(o, Error, "internal: unknown op ", name);
  return *o;
}

Tensor num(double v) {
  return scalar_tensor(Scalar(v));
}

void add_(const Tensor& x, const Tensor& y, double alpha = 1.0) {
  apply_inplace("add", x, y, alpha);
}
void mul_(const Tensor& x, double v) {
  apply_inplace("mul", x, num(v));
}
void div_(const Tensor& x, double v) {
  apply_inplace("div", x, num(v));
}
void add_scalar_(const Tensor& x, double v) {
  apply_inplace("add", x, num(v));
}
void sqrt_(const Tensor& x) {
  apply_inplace_unary("sqrt", x);
}
// x += value * a * b
void addcmul_(const Tensor& x, const Tensor& a, const Tensor& b, double value) {
  static const OpDef& o = op("addcmul");
  dispatch_out(o, {x, a, b}, {{"value", value}}, x);
}
// x += value * a / b
void addcdiv_(const Tensor& x, const Tensor& a, const Tensor& b, double value) {
  static const OpDef& o = op("addcdiv");
  dispatch_out(o, {x, a, b}, {{"value", value}}, x);
}
// x += w * (end - x)
void lerp_(const Tensor& x, const Tensor& end, double w) {
  static const OpDef& o = op("lerp");
  dispatch_out(o, {x, end, num(w)}, {}, x);
}

// A zero buffer shaped and typed like the parameter.
Tensor zeros_like_param(const Tensor& p) {
  return zeros(p.shape(), p.dtype());
}
// A copy of `src` typed like the parameter (momentum buffers start as the gradient).
Tensor copy_like_param(const Tensor& p, const Tensor& src) {
  Tensor t = Tensor::empty(p.shape(), p.dtype());
  copy_(t, src);
  return t;
}

// param -= scale * lr * x: with the group's lr tensor when it has one (read when the step
// runs), else with the lr option folded into one fused multiply-add.
// The learning rate as a 0-d tensor: the group's tensor in float64 (as the option is; the
// rate's own float32 would round the step-size arithmetic), or the option as a number.
Tensor lr_value(const Options& o, const Tensor& lr_t) {
  return lr_t.defined() ? to_dtype(lr_t, DType::Float64) : num(o.at("lr"));
}
void descend_(const Tensor& param, const Tensor& x, const Options& o, const Tensor& lr_t,
              double scale = 1.0) {
  if (!lr_t.defined()) return add_(param, x, -o.at("lr") * scale);
  Tensor lr = lr_value(o, lr_t);
  apply_inplace("sub", param, mul(x, scale == 1.0 ? lr : mul(lr, num(scale))));
}

bool flag(const Options& o, const char* key) {
  return o.at(key) != 0.0;
}

// The gradient after maximize and L2 weight decay (a new tensor only when one applies).
Tensor effective_grad(const Tensor& param, const Tensor& grad, const Options& o) {
  Tensor g = flag(o, "maximize") ? neg(grad) : grad;
  double wd = o.at("weight_decay");
  return wd != 0.0 ? add(g, param, wd) : g;
}

// Returns the state buffer `key`, creating it with make() on first use.
// A buffer first made inside a jit trace is made for real (not as a graph value): it is
// optimizer state, which compiled steps read and write back by reference.
template <typename F>
Tensor& buffer(ParamState& s, const char* key, F make) {
  auto it = s.tensors.find(key);
  if (it == s.tensors.end()) {
    graph::TracePause real;
    it = s.tensors.emplace(key, make()).first;
  }
  return it->second;
}

// The step count after this update; while tracing, `t` is that count as a graph value (a
// compiled step must not bake the traced step's number into its constants).
struct Step {
  double value;
  Tensor t;
};

Step next_step(ParamState& s) {
  double& count = s.scalars["step"];
  if (graph::Tracer::active()) {
    if (!s.step_tensor.defined()) {
      graph::TracePause real;
      s.step_tensor = full({}, Scalar(count), DType::Float64);
    }
    add_scalar_(s.step_tensor, 1.0);
    return {count + 1.0, s.step_tensor};
  }
  if (s.step_tensor.defined()) {  // compiled steps advanced it: it holds the count
    double* p = static_cast<double*>(s.step_tensor.data_ptr());
    *p += 1.0;
    s.step_tensor.storage()->bump_version();
    count = *p;
  } else {
    count += 1.0;
  }
  return {count, Tensor()};
}

// 1 - beta^step, as a number or (tracing) a 0-d tensor.
Tensor one_minus_pow(double beta, const Tensor& step) {
  return sub(num(1.0), pow(num(beta), step));
}

void check(bool ok, const std::string& opt, const char* what, double value) {
  TANDEM_CHECK(ok, ValueError, opt, ": invalid ", what, ": ", value);
}
void check_common(const std::string& name, const Options& o) {
  check(o.at("lr") >= 0.0, name, "learning rate (lr must be >= 0)", o.at("lr"));
  check(o.at("weight_decay") >= 0.0, name, "weight_decay value (must be >= 0)",
        o.at("weight_decay"));
  if (o.count("eps")) check(o.at("eps") >= 0.0, name, "epsilon value (must be >= 0)", o.at("eps"));
}

Options with_defaults(Options base, const Options& common) {
  for (const auto& kv : common) base.emplace(kv);
  return base;
}

// Adam and AdamW share everything but the decay.
void adam_update(const Tensor& param, const Tensor& grad, ParamState& s, const Options& o,
                 bool decoupled, const Tensor& lr_t) {
  double lr = o.at("lr"), beta1 = o.at("beta1"), beta2 = o.at("beta2"), eps = o.at("eps");
  double wd = o.at("weight_decay");
  Step step = next_step(s);
  Tensor g = flag(o, "maximize") ? neg(grad) : grad;
  if (decoupled) {
    if (wd != 0.0 && lr_t.defined())
      apply_inplace("mul", param, sub(num(1.0), mul(lr_value(o, lr_t), num(wd))));
    else if (wd != 0.0)
      mul_(param, 1.0 - lr * wd);
  } else if (wd != 0.0) {
    g = add(g, param, wd);
  }
  Tensor& m = buffer(s, "exp_avg", [&] { return zeros_like_param(param); });
  Tensor& v = buffer(s, "exp_avg_sq", [&] { return zeros_like_param(param); });
  lerp_(m, g, 1.0 - beta1);
  mul_(v, beta2);
  addcmul_(v, g, g, 1.0 - beta2);
  bool bias = flag(o, "bias_correction");
  double bc1 = bias ? 1.0 - std::pow(beta1, step.value) : 1.0;
  double bc2_sqrt = bias ? std::sqrt(1.0 - std::pow(beta2, step.value)) : 1.0;
  const Tensor* second = &v;
  if (flag(o, "amsgrad")) {
    Tensor& vmax = buffer(s, "max_exp_avg_sq", [&] { return zeros_like_param(param); });
    apply_inplace("maximum", vmax, v);
    second = &vmax;
  }
  Tensor denom = sqrt(*second);
  // MindSpore's use_nesterov looks ahead: beta1 * m + (1 - beta1) * g.
  Tensor numer = flag(o, "nesterov") ? lerp(m, g, num(1.0 - beta1)) : m;
  if ((bias && step.t.defined()) || lr_t.defined()) {
    // Traced (the corrections follow the count) or a rate tensor: tensor arithmetic.
    Tensor bc1_t = !bias ? num(1.0) : step.t.defined() ? one_minus_pow(beta1, step.t) : num(bc1);
    Tensor bc2_sqrt_t = !bias              ? num(1.0)
                        : step.t.defined() ? sqrt(one_minus_pow(beta2, step.t))
                                           : num(bc2_sqrt);
    Tensor step_size_t;
    if (flag(o, "raw_eps")) {
      step_size_t = div(mul(bc2_sqrt_t, lr_value(o, lr_t)), bc1_t);
    } else {
      apply_inplace("div", denom, bc2_sqrt_t);
      step_size_t = div(lr_value(o, lr_t), bc1_t);
    }
    add_scalar_(denom, eps);
    apply_inplace("sub", param, mul(div(numer, denom), step_size_t));
    return;
  }
  double step_size;
  if (flag(o, "raw_eps")) {
    // MindSpore's Adam: lr * sqrt(bc2) / bc1 * m / (sqrt(v) + eps).
    step_size = lr * bc2_sqrt / bc1;
  } else {
    div_(denom, bc2_sqrt);
    step_size = lr / bc1;
  }
  add_scalar_(denom, eps);
  addcdiv_(param, numer, denom, -step_size);
}

const Options kAdamDefaults = {{"lr", 1e-3},      {"beta1", 0.9},   {"beta2", 0.999},
                               {"eps", 1e-8},     {"amsgrad", 0.0}, {"maximize", 0.0},
                               {"nesterov", 0.0}, {"raw_eps", 0.0}, {"bias_correction", 1.0}};

void validate_adam(const std::string& name, const Options& o) {
  check_common(name, o);
  check(o.at("beta1") >= 0.0 && o.at("beta1") < 1.0, name, "beta parameter at index 0",
        o.at("beta1"));
  check(o.at("beta2") >= 0.0 && o.at("beta2") < 1.0, name, "beta parameter at index 1",
        o.at("beta2"));
}

}  // namespace

// --- SGD -----------------------------------------------------------------------------------
Options SGD::default_options() {
  return {{"lr", 1e-3},          {"momentum", 0.0}, {"dampening", 0.0},
          {"weight_decay", 0.0}, {"nesterov", 0.0}, {"maximize", 0.0}};
}
SGD::SGD(std::vector<ParamGroup> groups, const Options& defaults)
    : Optimizer("SGD", default_options(), defaults) {
  validate(this->defaults());
  for (auto& g : groups) add_param_group(std::move(g.params), g.options);
}
void SGD::validate(const Options& o) const {
  check_common(name(), o);
  check(o.at("momentum") >= 0.0, name(), "momentum value (must be >= 0)", o.at("momentum"));
  TANDEM_CHECK(!flag(o, "nesterov") || (o.at("momentum") > 0.0 && o.at("dampening") == 0.0),
               ValueError, name(), ": nesterov momentum requires a momentum and zero dampening ",
               "(got momentum ", o.at("momentum"), ", dampening ", o.at("dampening"), ")");
}
void SGD::update(const Tensor& param, const Tensor& grad, ParamState& s, const Options& o) {
  Tensor g = effective_grad(param, grad, o);
  double momentum = o.at("momentum");
  if (momentum != 0.0) {
    auto it = s.tensors.find("momentum_buffer");
    if (it == s.tensors.end() && graph::Tracer::active()) {
      // PyTorch's first step sets buf = g, later ones buf = m * buf + (1 - d) * g. A graph
      // runs one of them forever: start from a real zero buffer, for which the general rule
      // gives g exactly when there is no dampening.
      TANDEM_CHECK(o.at("dampening") == 0.0, NotImplementedError,
                   "SGD: momentum with dampening cannot start inside jit (the first step "
                   "differs from later ones); run one eager step before compiling the step");
      buffer(s, "momentum_buffer", [&] { return zeros_like_param(param); });
      it = s.tensors.find("momentum_buffer");
      mul_(it->second, momentum);
      add_(it->second, g, 1.0);
    } else if (it == s.tensors.end()) {
      it = s.tensors.emplace("momentum_buffer", copy_like_param(param, g)).first;
    } else {
      mul_(it->second, momentum);
      add_(it->second, g, 1.0 - o.at("dampening"));
    }
    g = flag(o, "nesterov") ? add(g, it->second, momentum) : it->second;
  }
  descend_(param, g, o, lr_tensor());
}

// --- Adam / AdamW --------------------------------------------------------------------------
Options Adam::default_options() {
  return with_defaults(kAdamDefaults, {{"weight_decay", 0.0}});
}
Adam::Adam(std::vector<ParamGroup> groups, const Options& defaults)
    : Optimizer("Adam", default_options(), defaults) {
  validate(this->defaults());
  for (auto& g : groups) add_param_group(std::move(g.params), g.options);
}
void Adam::validate(const Options& o) const {
  validate_adam(name(), o);
}
void Adam::update(const Tensor& param, const Tensor& grad, ParamState& s, const Options& o) {
  adam_update(param, grad, s, o, false, lr_tensor());
}

Options AdamW::default_options() {
  return with_defaults(kAdamDefaults, {{"weight_decay", 1e-2}});
}
AdamW::AdamW(std::vector<ParamGroup> groups, const Options& defaults)
    : Optimizer("AdamW", default_options(), defaults) {
  validate(this->defaults());
  for (auto& g : groups) add_param_group(std::move(g.params), g.options);
}
void AdamW::validate(const Options& o) const {
  validate_adam(name(), o);
}
void AdamW::update(const Tensor& param, const Tensor& grad, ParamState& s, const Options& o) {
  adam_update(param, grad, s, o, true, lr_tensor());
}

// --- RMSprop -------------------------------------------------------------------------------
Options RMSprop::default_options() {
  return {{"lr", 1e-2},      {"alpha", 0.99},   {"eps", 1e-8},    {"weight_decay", 0.0},
          {"momentum", 0.0}, {"centered", 0.0}, {"maximize", 0.0}};
}
RMSprop::RMSprop(std::vector<ParamGroup> groups, const Options& defaults)
    : Optimizer("RMSprop", default_options(), defaults) {
  validate(this->defaults());
  for (auto& g : groups) add_param_group(std::move(g.params), g.options);
}
void RMSprop::validate(const Options& o) const {
  check_common(name(), o);
  check(o.at("momentum") >= 0.0, name(), "momentum value (must be >= 0)", o.at("momentum"));
  check(o.at("alpha") >= 0.0, name(), "alpha value (must be >= 0)", o.at("alpha"));
}
void RMSprop::update(const Tensor& param, const Tensor& grad, ParamState& s, const Options& o) {
  Tensor g = effective_grad(param, grad, o);
  double alpha = o.at("alpha");
  next_step(s);
  Tensor& sq = buffer(s, "square_avg", [&] { return zeros_like_param(param); });
  mul_(sq, alpha);
  addcmul_(sq, g, g, 1.0 - alpha);
  Tensor avg;
  if (flag(o, "centered")) {
    Tensor& ga = buffer(s, "grad_avg", [&] { return zeros_like_param(param); });
    lerp_(ga, g, 1.0 - alpha);
    avg = addcmul(sq, ga, ga, -1.0);
    sqrt_(avg);
  } else {
    avg = sqrt(sq);
  }
  add_scalar_(avg, o.at("eps"));
  double momentum = o.at("momentum");
  if (momentum > 0.0) {
    Tensor& buf = buffer(s, "momentum_buffer", [&] { return zeros_like_param(param); });
    mul_(buf, momentum);
    addcdiv_(buf, g, avg, 1.0);
    descend_(param, buf, o, lr_tensor());
  } else {
    if (lr_tensor().defined())
      descend_(param, div(g, avg), o, lr_tensor());
    else
      addcdiv_(param, g, avg, -o.at("lr"));
  }
}

// --- Adagrad -------------------------------------------------------------------------------
Options Adagrad::default_options() {
  return {{"lr", 1e-2},          {"lr_decay", 0.0},
          {"weight_decay", 0.0}, {"initial_accumulator_value", 0.0},
          {"eps", 1e-10},        {"maximize", 0.0}};
}
Adagrad::Adagrad(std::vector<ParamGroup> groups, const Options& defaults)
    : Optimizer("Adagrad", default_options(), defaults) {
  validate(this->defaults());
  for (auto& g : groups) add_param_group(std::move(g.params), g.options);
}
void Adagrad::validate(const Options& o) const {
  check_common(name(), o);
  check(o.at("lr_decay") >= 0.0, name(), "lr_decay value (must be >= 0)", o.at("lr_decay"));
  check(o.at("initial_accumulator_value") >= 0.0, name(),
        "initial_accumulator_value (must be >= 0)", o.at("initial_accumulator_value"));
}
void Adagrad::update(const Tensor& param, const Tensor& grad, ParamState& s, const Options& o) {
  Tensor g = effective_grad(param, grad, o);
  Step step = next_step(s);
  double lr_decay = o.at("lr_decay");
  double clr = o.at("lr") / (1.0 + (step.value - 1.0) * lr_decay);
  Tensor& sum = buffer(s, "sum", [&] {
    return full(param.shape(), o.at("initial_accumulator_value"), param.dtype());
  });
  addcmul_(sum, g, g, 1.0);
  Tensor std_ = sqrt(sum);
  add_scalar_(std_, o.at("eps"));
  if ((lr_decay != 0.0 && step.t.defined()) || lr_tensor().defined()) {
    // Traced (the decayed rate follows the count) or a rate tensor: tensor arithmetic.
    Tensor clr_t = div(lr_value(o, lr_tensor()),
                       step.t.defined() ? add(num(1.0), sub(step.t, num(1.0)), lr_decay)
                                        : num(1.0 + (step.value - 1.0) * lr_decay));
    apply_inplace("sub", param, mul(div(g, std_), clr_t));
    return;
  }
  addcdiv_(param, g, std_, -clr);
}

// --- Adadelta ------------------------------------------------------------------------------
Options Adadelta::default_options() {
  return {{"lr", 1.0}, {"rho", 0.9}, {"eps", 1e-6}, {"weight_decay", 0.0}, {"maximize", 0.0}};
}
Adadelta::Adadelta(std::vector<ParamGroup> groups, const Options& defaults)
    : Optimizer("Adadelta", default_options(), defaults) {
  validate(this->defaults());
  for (auto& g : groups) add_param_group(std::move(g.params), g.options);
}
void Adadelta::validate(const Options& o) const {
  check_common(name(), o);
  check(o.at("rho") >= 0.0 && o.at("rho") <= 1.0, name(), "rho value (must be in [0, 1])",
        o.at("rho"));
}
void Adadelta::update(const Tensor& param, const Tensor& grad, ParamState& s, const Options& o) {
  Tensor g = effective_grad(param, grad, o);
  double rho = o.at("rho"), eps = o.at("eps");
  next_step(s);
  Tensor& sq = buffer(s, "square_avg", [&] { return zeros_like_param(param); });
  Tensor& acc = buffer(s, "acc_delta", [&] { return zeros_like_param(param); });
  mul_(sq, rho);
  addcmul_(sq, g, g, 1.0 - rho);
  Tensor std_ = add(sq, num(eps));
  sqrt_(std_);
  Tensor delta = add(acc, num(eps));
  sqrt_(delta);
  apply_inplace("div", delta, std_);
  apply_inplace("mul", delta, g);
  mul_(acc, rho);
  addcmul_(acc, delta, delta, 1.0 - rho);
  descend_(param, delta, o, lr_tensor());
}

// --- Momentum (MindSpore) ------------------------------------------------------------------
Options Momentum::default_options() {
  return {{"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.0}, {"nesterov", 0.0}};
}
Momentum::Momentum(std::vector<ParamGroup> groups, const Options& defaults)
    : Optimizer("Momentum", default_options(), defaults) {
  validate(this->defaults());
  for (auto& g : groups) add_param_group(std::move(g.params), g.options);
}
void Momentum::validate(const Options& o) const {
  check_common(name(), o);
  check(o.at("momentum") >= 0.0, name(), "momentum value (must be >= 0)", o.at("momentum"));
}
void Momentum::update(const Tensor& param, const Tensor& grad, ParamState& s, const Options& o) {
  double wd = o.at("weight_decay"), momentum = o.at("momentum");
  Tensor g = wd != 0.0 ? add(grad, param, wd) : grad;
  // MindSpore's ApplyMomentum: the accumulator starts at zero (no first-step special case).
  Tensor& accum = buffer(s, "moments", [&] { return zeros_like_param(param); });
  mul_(accum, momentum);
  add_(accum, g);
  if (flag(o, "nesterov")) {
    // param -= lr * (g + momentum * accum)
    descend_(param, g, o, lr_tensor());
    descend_(param, accum, o, lr_tensor(), momentum);
  } else {
    descend_(param, accum, o, lr_tensor());
  }
}

std::unique_ptr<Optimizer> create(const std::string& name, std::vector<ParamGroup> groups,
                                  const Options& defaults) {
#define TANDEM_CREATE(Cls) \
  if (name == #Cls) return std::make_unique<Cls>(std::move(groups), defaults);
  TANDEM_CREATE(SGD)
  TANDEM_CREATE(Adam)
  TANDEM_CREATE(AdamW)
  TANDEM_CREATE(RMSprop)
  TANDEM_CREATE(Adagrad)
  TANDEM_CREATE(Adadelta)
  TANDEM_CREATE(Momentum)
#undef TANDEM_CREATE
  throw_error<ValueError>("optim.create: unknown optimizer '", name,
                          "'; known: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Momentum");
}

}  // namespace tandem::optim
