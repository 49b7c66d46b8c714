#include "nn/module.h"

#include <cmath>
#include <set>

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"
#include "tandem/io/safetensors.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/norm.h"
#include "tandem/ops/pool.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::nn {
namespace {

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// uniform(-bound, bound) in place, as PyTorch's kaiming_uniform_(a=sqrt(5)) reduces to.
Tensor uniform_param(const Shape& shape, double bound) {
  GradModeGuard off(false);
  return uniform(-bound, bound, shape, DType::Float32);
}

}  // namespace

Tensor Module::register_parameter(const std::string& name, Tensor value) {
  set_requires_grad(value, true);
  params_.emplace_back(name, value);
  return value;
}

Tensor Module::register_buffer(const std::string& name, Tensor value) {
  buffers_.emplace_back(name, value);
  return value;
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(
    const std::string& prefix) const {
  std::vector<std::pair<std::string, Tensor>> out;
  std::set<const TensorImpl*> seen;
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m,
                                                                    const std::string& p) {
    for (auto& [n, t] : m.params_)
      if (seen.insert(t.impl()).second) out.emplace_back(join(p, n), t);
    for (auto& [n, c] : m.children_) walk(*c, join(p, n));
  };
  walk(*this, prefix);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_parameters()) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(const std::string& prefix) const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (auto& [n, t] : buffers_) out.emplace_back(join(prefix, n), t);
  for (auto& [n, c] : children_)
    for (auto& kv : c->named_buffers(join(prefix, n))) out.push_back(kv);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::state_dict() const {
  auto out = named_parameters();
  for (auto& kv : named_buffers()) out.push_back(kv);
  return out;
}

void Module::load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state,
                             bool strict) {
  auto own = state_dict();
  std::string missing, unexpected;
  GradModeGuard off(false);
  for (auto& [name, target] : own) {
    const Tensor* src = nullptr;
    for (auto& [k, v] : state)
      if (k == name) src = &v;
    if (!src) {
      missing += (missing.empty() ? "" : ", ") + name;
      continue;
    }
    TANDEM_CHECK(src->shape() == target.shape(), ValueError, "load_state_dict: size mismatch for ",
                 name, ": ", shape_str(src->shape()), " vs ", shape_str(target.shape()));
    copy_(target, *src);
  }
  for (auto& [k, v] : state) {
    bool known = false;
    for (auto& [n, t] : own) known |= n == k;
    if (!known) unexpected += (unexpected.empty() ? "" : ", ") + k;
  }
  TANDEM_CHECK(!strict || (missing.empty() && unexpected.empty()), ValueError,
               "load_state_dict: missing keys [", missing, "], unexpected keys [", unexpected, "]");
}

void Module::train(bool mode) {
  training_ = mode;
  for (auto& [n, c] : children_) c->train(mode);
}

void Module::zero_grad() {
  for (Tensor& p : parameters()) set_grad(p, Tensor());
}

Linear::Linear(int64_t in_features, int64_t out_features, bool has_bias) {
  TANDEM_CHECK(in_features > 0 && out_features > 0, ValueError,
               "Linear: in_features and out_features must be positive, got ", in_features, ", ",
               out_features);
  double bound = 1.0 / std::sqrt(double(in_features));
  weight = register_parameter("weight", uniform_param({out_features, in_features}, bound));
  if (has_bias) bias = register_parameter("bias", uniform_param({out_features}, bound));
}

Tensor Linear::forward(const Tensor& x) {
  return linear(x, weight, bias);
}

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride_,
               int64_t padding_, bool has_bias)
    : stride(stride_), padding(padding_) {
  double bound = 1.0 / std::sqrt(double(in_channels * kernel_size * kernel_size));
  weight = register_parameter(
      "weight", uniform_param({out_channels, in_channels, kernel_size, kernel_size}, bound));
  if (has_bias) bias = register_parameter("bias", uniform_param({out_channels}, bound));
}

Tensor Conv2d::forward(const Tensor& x) {
  Conv2dArgs a;
  a.stride = {stride, stride};
  a.padding = {padding, padding, padding, padding};
  return conv2d(x, weight, bias, a);
}

BatchNorm::BatchNorm(int64_t num_features, double eps_, double momentum_)
    : eps(eps_), momentum(momentum_) {
  weight = register_parameter("weight", ones({num_features}));
  bias = register_parameter("bias", zeros({num_features}));
  running_mean = register_buffer("running_mean", zeros({num_features}));
  running_var = register_buffer("running_var", ones({num_features}));
}

Tensor BatchNorm::forward(const Tensor& x) {
  return batch_norm(x, running_mean, running_var, weight, bias, is_training(), momentum, eps);
}

LayerNorm::LayerNorm(std::vector<int64_t> shape, double eps_)
    : normalized_shape(std::move(shape)), eps(eps_) {
  weight = register_parameter("weight", ones(normalized_shape));
  bias = register_parameter("bias", zeros(normalized_shape));
}

Tensor LayerNorm::forward(const Tensor& x) {
  return layer_norm(x, normalized_shape, weight, bias, eps);
}

Pool2d::Pool2d(bool max, int64_t kernel_size, int64_t stride, int64_t padding)
    : max_(max), k_(kernel_size), s_(stride > 0 ? stride : kernel_size), p_(padding) {}

Tensor Pool2d::forward(const Tensor& x) {
  Pool2dArgs a;
  a.kernel = {k_, k_};
  a.stride = {s_, s_};
  a.padding = {p_, p_};
  return max_ ? max_pool2d(x, a).first : avg_pool2d(x, a);
}

Tensor Dropout::forward(const Tensor& x) {
  return dropout(x, p_, is_training());
}

Embedding::Embedding(int64_t num_embeddings, int64_t dim) {
  GradModeGuard off(false);
  weight = register_parameter("weight", randn({num_embeddings, dim}));
}

Tensor Embedding::forward(const Tensor& indices) {
  return embedding(indices, weight);
}

void save(const Module& m, const std::string& path) {
  io::save_safetensors(path, m.state_dict());
}

void load(Module& m, const std::string& path, bool strict) {
  m.load_state_dict(io::load_safetensors(path).first, strict);
}

std::shared_ptr<Module> ReLU() {
  return std::make_shared<Activation>([](const Tensor& x) { return relu(x); });
}
std::shared_ptr<Module> Sigmoid() {
  return std::make_shared<Activation>([](const Tensor& x) { return sigmoid(x); });
}
std::shared_ptr<Module> Tanh() {
  return std::make_shared<Activation>([](const Tensor& x) { return tanh(x); });
}
std::shared_ptr<Module> Flatten() {
  return std::make_shared<Activation>([](const Tensor& x) { return flatten(x, 1, -1); });
}

Sequential::Sequential(std::vector<std::shared_ptr<Module>> modules) {
  for (auto& m : modules) push_back(m);
}

void Sequential::push_back(std::shared_ptr<Module> m) {
  register_module(std::to_string(modules_.size()), m);
  modules_.push_back(std::move(m));
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (auto& m : modules_) y = m->forward(y);
  return y;
}

}  // namespace tandem::nn
