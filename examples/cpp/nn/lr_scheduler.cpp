#include "nn/lr_scheduler.h"

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

MultiStepLR::MultiStepLR(Optimizer& opt, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(opt), milestones_(std::move(milestones)), gamma_(gamma) {}
double MultiStepLR::lr_at(double base, int64_t e) const {
  auto passed =
      std::count_if(milestones_.begin(), milestones_.end(), [e](int64_t m) { return m <= e; });
  return base * std::pow(gamma_, double(passed));
}

LambdaLR::LambdaLR(Optimizer& opt, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(opt), lambda_(std::move(lr_lambda)) {
  TANDEM_CHECK(bool(lambda_), ValueError, "LambdaLR: lr_lambda must be a callable");
  apply();  // epoch 0 already uses lambda(0), as in PyTorch
}
double LambdaLR::lr_at(double base, int64_t e) const {
  return base * lambda_(e);
}

OneCycleLR::OneCycleLR(Optimizer& opt, double max_lr, int64_t total_steps, double pct_start,
                       bool cosine, double div_factor, double final_div_factor)
    : LRScheduler(opt),
      max_lr_(max_lr),
      initial_lr_(max_lr / div_factor),
      min_lr_(max_lr / div_factor / final_div_factor),
      up_end_(pct_start * double(total_steps) - 1),
      total_(total_steps),
      cosine_(cosine) {
  TANDEM_CHECK(total_steps > 0, ValueError, "OneCycleLR: total_steps must be positive, got ",
               total_steps);
  TANDEM_CHECK(pct_start >= 0 && pct_start <= 1, ValueError,
               "OneCycleLR: pct_start must be in [0, 1], got ", pct_start);
  TANDEM_CHECK(div_factor > 0 && final_div_factor > 0, ValueError,
               "OneCycleLR: div_factor and final_div_factor must be positive");
  apply();
}
double OneCycleLR::lr_at(double, int64_t e) const {
  TANDEM_CHECK(e < total_, ValueError, "OneCycleLR: stepped ", e + 1, " times but total_steps is ",
               total_, "; raise total_steps");
  auto anneal = [this](double start, double end, double pct) {
    if (cosine_) return end + (start - end) / 2.0 * (std::cos(M_PI * pct) + 1);
    return (end - start) * pct + start;
  };
  double step = double(e);
  if (step <= up_end_) return anneal(initial_lr_, max_lr_, up_end_ > 0 ? step / up_end_ : 1.0);
  double end = double(total_ - 1);
  return anneal(max_lr_, min_lr_, (step - up_end_) / (end - up_end_));
}

}  // namespace tandem::optim
