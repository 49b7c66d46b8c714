#include "tandem/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>

#include "tandem/core/error.h"

namespace tandem::optim {

LRScheduler::LRScheduler(Optimizer& opt) : opt_(opt) {
  for (int64_t g = 0; g < opt.num_groups(); ++g) base_lrs_.push_back(opt.option(g, "lr"));
  last_lr_ = base_lrs_;
}

void LRScheduler::apply() {
  for (size_t g = 0; g < base_lrs_.size(); ++g) {
    last_lr_[g] = lr_at(base_lrs_[g], epoch_);
    opt_.set_options(int64_t(g), {{"lr", last_lr_[g]}});
  }
}

void LRScheduler::step() {
  ++epoch_;
  apply();
}

StepLR::StepLR(Optimizer& opt, int64_t step_size, double gamma)
    : LRScheduler(opt), step_size_(step_size), gamma_(gamma) {
  TANDEM_CHECK(step_size > 0, ValueError, "StepLR: step_size must be positive, got ", step_size);
}
double StepLR::lr_at(double base, int64_t e) const {
  return base * std::pow(gamma_, double(e / step_size_));
}

ExponentialLR::ExponentialLR(Optimizer& opt, double gamma) : LRScheduler(opt), gamma_(gamma) {}
double ExponentialLR::lr_at(double base, int64_t e) const {
  return base * std::pow(gamma_, double(e));
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& opt, int64_t t_max, double eta_min)
    : LRScheduler(opt), t_max_(t_max), eta_min_(eta_min) {
  TANDEM_CHECK(t_max > 0, ValueError, "CosineAnnealingLR: T_max must be positive, got ", t_max);
}
double CosineAnnealingLR::lr_at(double base, int64_t e) const {
  return eta_min_ + (base - eta_min_) * (1 + std::cos(M_PI * double(e) / double(t_max_))) / 2;
}

LinearLR::LinearLR(Optimizer& opt, double start, double end, int64_t total)
    : LRScheduler(opt), start_(start), end_(end), total_(total) {
  TANDEM_CHECK(start > 0 && start <= 1 && end >= 0 && end <= 1 && total > 0, ValueError,
               "LinearLR: factors must be in (0, 1] / [0, 1] and total_iters positive");
  apply();  // the first epoch already uses start_factor, as in PyTorch
}
double LinearLR::lr_at(double base, int64_t e) const {
  double t = double(std::min(e, total_)) / double(total_);
  return base * (start_ + (end_ - start_) * t);
}

}  // namespace tandem::optim
