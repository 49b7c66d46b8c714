// An example C++ front end (tandem::nn, the examples' library): Module with named
// parameters, buffers and submodules, and the common layers, calling the same ops as the
// Python layers (linear, conv2d, ...).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem::nn {

class Module {
 public:
  virtual ~Module() = default;
  // The computation; layers with several inputs add their own overloads.
  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return forward(x); }

  // Parameters of this module and its submodules, each once, with dotted names.
  std::vector<std::pair<std::string, Tensor>> named_parameters(
      const std::string& prefix = "") const;
  std::vector<Tensor> parameters() const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(const std::string& prefix = "") const;
  // Parameters and buffers by dotted name (what checkpoints save).
  std::vector<std::pair<std::string, Tensor>> state_dict() const;
  // Copies values in by name; throws naming missing / unexpected keys or shape mismatches.
  void load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state,
                       bool strict = true);
  void train(bool mode = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  // Drops every parameter's .grad.
  void zero_grad();

 protected:
  // Registers a trainable tensor (requires_grad is set) and returns it.
  Tensor register_parameter(const std::string& name, Tensor value);
  Tensor register_buffer(const std::string& name, Tensor value);
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    children_.emplace_back(name, m);
    return m;
  }
  bool training_ = true;

 private:
  std::vector<std::pair<std::string, Tensor>> params_, buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

// y = x W^T + b with PyTorch's default initialisation.
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;
};

// NCHW convolution with PyTorch's defaults (padding per side: {top, left, bottom, right}).
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
         int64_t padding = 0, bool bias = true);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;
  int64_t stride, padding;
};

// Batch normalisation over dim 1 of (N, C, *) input, with running statistics as buffers.
class BatchNorm : public Module {
 public:
  explicit BatchNorm(int64_t num_features, double eps = 1e-5, double momentum = 0.1);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias, running_mean, running_var;
  double eps, momentum;
};

// Normalisation over the trailing dims given by normalized_shape.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5);
  Tensor forward(const Tensor& x) override;
  Tensor weight, bias;
  std::vector<int64_t> normalized_shape;
  double eps;
};

// 2-D max or average pooling (stride defaults to the kernel size).
class Pool2d : public Module {
 public:
  Pool2d(bool max, int64_t kernel_size, int64_t stride = 0, int64_t padding = 0);
  Tensor forward(const Tensor& x) override;

 private:
  bool max_;
  int64_t k_, s_, p_;
};

// Zeroes elements with probability p in training mode.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5) : p_(p) {}
  Tensor forward(const Tensor& x) override;

 private:
  double p_;
};

// Rows of a (num_embeddings, dim) table for int64 indices.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t dim);
  Tensor forward(const Tensor& indices) override;
  Tensor weight;
};

// Saves / loads a module's state_dict as a safetensors file (atomic write).
void save(const Module& m, const std::string& path);
void load(Module& m, const std::string& path, bool strict = true);

// An element-wise function (relu, sigmoid, tanh, ...) as a module.
class Activation : public Module {
 public:
  explicit Activation(std::function<Tensor(const Tensor&)> fn) : fn_(std::move(fn)) {}
  Tensor forward(const Tensor& x) override { return fn_(x); }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};
std::shared_ptr<Module> ReLU();
std::shared_ptr<Module> Sigmoid();
std::shared_ptr<Module> Tanh();
// Flattens all dims after the first.
std::shared_ptr<Module> Flatten();

// Runs modules in order.
class Sequential : public Module {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<std::shared_ptr<Module>> modules);
  void push_back(std::shared_ptr<Module> m);
  Tensor forward(const Tensor& x) override;
  size_t size() const { return modules_.size(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};

}  // namespace tandem::nn
