// Learning-rate schedules for the C++ optimizers (closed forms of PyTorch's schedulers).
#pragma once
#include <functional>
#include <vector>

#include "tandem/optim/optimizer.h"

namespace tandem::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& opt);
  virtual ~LRScheduler() = default;
  // Advances one epoch (or step) and writes the new lr into every parameter group.
  void step();
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return epoch_; }

 protected:
  // The lr of a group with initial lr `base` at `epoch`.
  virtual double lr_at(double base, int64_t epoch) const = 0;
  void apply();

 private:
  Optimizer& opt_;
  std::vector<double> base_lrs_, last_lr_;
  int64_t epoch_ = 0;
};

// lr * gamma^(epoch / step_size)
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& opt, int64_t step_size, double gamma = 0.1);

 protected:
  double lr_at(double base, int64_t epoch) const override;

 private:
  int64_t step_size_;
  double gamma_;
};

// lr * gamma^epoch
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& opt, double gamma);

 protected:
  double lr_at(double base, int64_t epoch) const override;

 private:
  double gamma_;
};

// eta_min + (lr - eta_min) (1 + cos(pi epoch / T_max)) / 2
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& opt, int64_t t_max, double eta_min = 0.0);

 protected:
  double lr_at(double base, int64_t epoch) const override;

 private:
  int64_t t_max_;
  double eta_min_;
};

// Linear warm-up: lr * (start + (end - start) min(epoch, total) / total)
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& opt, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 protected:
  double lr_at(double base, int64_t epoch) const override;

 private:
  double start_, end_;
  int64_t total_;
};

// lr * gamma^(number of milestones <= epoch); milestones need not be sorted.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& opt, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  double lr_at(double base, int64_t epoch) const override;

 private:
  std::vector<int64_t> milestones_;
  double gamma_;
};

// lr * lambda(epoch)
class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& opt, std::function<double(int64_t)> lr_lambda);

 protected:
  double lr_at(double base, int64_t epoch) const override;

 private:
  std::function<double(int64_t)> lambda_;
};

// The 1cycle policy (two phases, as PyTorch's default): max_lr / div_factor up to max_lr
// over pct_start of total_steps, then down to initial / final_div_factor. Steps per batch;
// momentum is not cycled here (the Python scheduler does that).
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& opt, double max_lr, int64_t total_steps, double pct_start = 0.3,
             bool cosine = true, double div_factor = 25.0, double final_div_factor = 1e4);

 protected:
  double lr_at(double base, int64_t epoch) const override;

 private:
  double max_lr_, initial_lr_, min_lr_, up_end_;
  int64_t total_;
  bool cosine_;
};

}  // namespace tandem::optim
