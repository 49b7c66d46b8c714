#include "tandem/data/loader.h"

#include <cxxabi.h>
#include <omp.h>

#include <numeric>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/philox.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::data {

Tensor Source::gather(int64_t column, const std::vector<int64_t>& indices) const {
  std::vector<Tensor> rows;
  rows.reserve(indices.size());
  for (int64_t i : indices) rows.push_back(get(i)[size_t(column)]);
  return stack_samples(rows, "batch");
}

TensorSource::TensorSource(std::vector<Tensor> columns) : columns_(std::move(columns)) {
  TANDEM_CHECK(!columns_.empty(), ValueError, "TensorDataset: needs at least one tensor");
  for (auto& c : columns_)
    TANDEM_CHECK(c.dim() >= 1, ValueError,
                 "TensorDataset: tensors need a sample dim, got a 0-d tensor");
  n_ = columns_[0].shape()[0];
  for (size_t i = 1; i < columns_.size(); ++i)
    TANDEM_CHECK(columns_[i].shape()[0] == n_, ValueError,
                 "TensorDataset: size mismatch between tensors: ", n_, " vs ",
                 columns_[i].shape()[0], " samples (tensor ", i, ")");
}

std::vector<Tensor> TensorSource::get(int64_t index) const {
  TANDEM_CHECK(index >= -n_ && index < n_, IndexError, "dataset index ", index,
               " is out of range for ", n_, " samples");
  std::vector<Tensor> out;
  for (auto& c : columns_) out.push_back(select(c, 0, index));
  return out;
}

Tensor TensorSource::gather(int64_t column, const std::vector<int64_t>& indices) const {
  Tensor idx = Tensor::empty({int64_t(indices.size())}, DType::Int64);
  std::copy(indices.begin(), indices.end(), idx.data<int64_t>());
  return index_select(columns_[size_t(column)], 0, idx);
}

Tensor stack_samples(const std::vector<Tensor>& samples, const char* what) {
  TANDEM_CHECK(!samples.empty(), ValueError, what, ": cannot stack zero samples");
  const Tensor& s0 = samples[0];
  Shape shape = s0.shape();
  shape.insert(shape.begin(), int64_t(samples.size()));
  Tensor out = Tensor::empty(shape, s0.dtype());
  for (size_t i = 0; i < samples.size(); ++i) {
    TANDEM_CHECK(samples[i].shape() == s0.shape(), ValueError, what, ": sample ", i, " has shape ",
                 shape_str(samples[i].shape()), " but sample 0 has ", shape_str(s0.shape()),
                 "; resize or crop the samples to one size");
    copy_into(select(out, 0, int64_t(i)), samples[i]);
  }
  return out;
}

Loader::Loader(std::shared_ptr<const Source> source,
               std::vector<std::vector<TransformPtr>> transforms, LoaderOptions options)
    : source_(std::move(source)), transforms_(std::move(transforms)), opt_(options) {
  TANDEM_CHECK(opt_.batch_size > 0, ValueError, "DataLoader: batch_size must be positive, got ",
               opt_.batch_size);
  TANDEM_CHECK(opt_.num_workers >= 0, ValueError,
               "DataLoader: num_workers must be non-negative, got ", opt_.num_workers);
  TANDEM_CHECK(opt_.prefetch_per_worker > 0, ValueError, "DataLoader: prefetch must be positive");
  transforms_.resize(size_t(source_->num_columns()));
}

Loader::~Loader() {
  stop();
}

int64_t Loader::num_batches() const {
  int64_t n = epoch_ >= 0 ? int64_t(order_.size()) : source_->size(), b = opt_.batch_size;
  return opt_.drop_last ? n / b : (n + b - 1) / b;
}

void Loader::stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
  std::lock_guard<std::mutex> g(mu_);
  stopping_ = false;
  ready_.clear();
  errors_.clear();
}

void Loader::start_epoch(std::optional<std::vector<int64_t>> order) {
  stop();
  int64_t n = source_->size();
  if (order) {
    for (int64_t i : *order)
      TANDEM_CHECK(i >= 0 && i < n, IndexError, "DataLoader: sample index ", i,
                   " in the epoch order is out of range for ", n, " samples");
  }
  ++epoch_;
  next_batch_ = 0;
  if (order) {
    order_ = std::move(*order);
  } else {
    order_.resize(size_t(n));
    std::iota(order_.begin(), order_.end(), 0);
  }
  if (opt_.shuffle && !order) {  // Fisher-Yates driven by Philox(seed, epoch): same order every run
    for (int64_t i = n - 1; i > 0; --i) {
      auto r = philox4x32(uint64_t(i), opt_.seed, uint32_t(epoch_) + 1);
      int64_t j = int64_t(((uint64_t(r[0]) << 32) | r[1]) % uint64_t(i + 1));
      std::swap(order_[size_t(i)], order_[size_t(j)]);
    }
  }
  running_ = opt_.num_workers;
  for (int w = 0; w < opt_.num_workers; ++w) workers_.emplace_back(&Loader::worker_loop, this, w);
}

std::vector<Tensor> Loader::build(int64_t b) const {
  int64_t start = b * opt_.batch_size;
  int64_t end = std::min<int64_t>(start + opt_.batch_size, int64_t(order_.size()));
  std::vector<int64_t> idx(order_.begin() + start, order_.begin() + end);
  size_t ncols = size_t(source_->num_columns());
  std::vector<Tensor> out(ncols);
  // Tensor-backed columns without transforms are gathered in one index_select; the rest
  // go sample by sample (one get() per sample for all of them).
  std::vector<size_t> per_sample;
  for (size_t c = 0; c < ncols; ++c) {
    if (transforms_[c].empty() && source_->fast_gather())
      out[c] = source_->gather(int64_t(c), idx);
    else
      per_sample.push_back(c);
  }
  if (per_sample.empty()) return out;
  std::vector<std::vector<Tensor>> cols(ncols);
  uint64_t rng_seed = opt_.seed ^ (uint64_t(epoch_ + 1) * 0x9E3779B97F4A7C15ULL);
  for (size_t k = 0; k < idx.size(); ++k) {
    std::vector<Tensor> sample = source_->get(idx[k]);
    TANDEM_CHECK(sample.size() == ncols, ValueError, "DataLoader: sample ", idx[k], " has ",
                 sample.size(), " fields, expected ", ncols);
    Rng rng(rng_seed, uint64_t(start) + k);
    for (size_t c : per_sample) {
      Tensor v = sample[c];
      for (auto& t : transforms_[c]) v = t->apply(v, rng);
      cols[c].push_back(v);
    }
  }
  for (size_t c : per_sample) out[c] = stack_samples(cols[c], "batch");
  return out;
}

void Loader::worker_loop(int w) {
  struct Done {
    std::atomic<int>& n;
    ~Done() { --n; }
  } done{running_};
  omp_set_num_threads(1);  // workers run in parallel with each other, not inside ops
  int64_t total = num_batches();
  int64_t window = int64_t(opt_.num_workers) * opt_.prefetch_per_worker;
  for (int64_t b = w; b < total; b += opt_.num_workers) {
    {
      std::unique_lock<std::mutex> g(mu_);
      cv_.wait(g, [&] { return stopping_ || b < next_batch_ + window; });
      if (stopping_) return;
    }
    std::vector<Tensor> batch;
    std::exception_ptr err;
    try {
      batch = build(b);
    } catch (abi::__forced_unwind&) {  // thread cancellation must keep unwinding
      throw;
    } catch (...) {
      err = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> g(mu_);
      if (err)
        errors_[b] = err;
      else
        ready_[b] = std::move(batch);
    }
    cv_.notify_all();
  }
}

std::vector<Tensor> Loader::next() {
  TANDEM_CHECK(epoch_ >= 0, Error, "DataLoader: next() called before start_epoch()");
  if (next_batch_ >= num_batches()) return {};
  int64_t b = next_batch_;
  if (workers_.empty()) {
    ++next_batch_;
    return build(b);
  }
  std::vector<Tensor> out;
  {
    std::unique_lock<std::mutex> g(mu_);
    cv_.wait(g, [&] { return ready_.count(b) || errors_.count(b); });
    if (auto it = errors_.find(b); it != errors_.end()) {
      std::exception_ptr e = it->second;
      errors_.erase(it);
      ++next_batch_;
      g.unlock();
      cv_.notify_all();
      std::rethrow_exception(e);
    }
    out = std::move(ready_[b]);
    ready_.erase(b);
    ++next_batch_;
  }
  cv_.notify_all();
  return out;
}

}  // namespace tandem::data
