#include "tandem/data/loader.h"

#include <cxxabi.h>
#include <omp.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

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

struct Loader::Epoch {
  std::shared_ptr<const Source> source;
  std::vector<std::vector<TransformPtr>> transforms;
  LoaderOptions opt;
  int64_t number = 0;
  std::vector<int64_t> order;
  std::mutex mu;
  std::condition_variable cv;
  int64_t next_batch = 0;  // guarded by mu
  std::map<int64_t, std::vector<Tensor>> ready;
  std::map<int64_t, std::exception_ptr> errors;
  bool stopping = false;
  std::atomic<int> running{0};
  int64_t num_batches() const {
    int64_t n = int64_t(order.size()), b = opt.batch_size;
    return opt.drop_last ? n / b : (n + b - 1) / b;
  }
};

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
  if (cur_) return cur_->num_batches();
  int64_t n = source_->size(), b = opt_.batch_size;
  return opt_.drop_last ? n / b : (n + b - 1) / b;
}

bool Loader::busy() const {
  return cur_ && cur_->running.load() > 0;
}

void Loader::stop() {
  std::shared_ptr<Epoch> e = std::move(cur_);
  if (!e) return;
  {
    std::lock_guard<std::mutex> g(e->mu);
    e->stopping = true;
  }
  e->cv.notify_all();
  const std::thread::id self = std::this_thread::get_id();
  for (auto& t : workers_) {
    if (t.get_id() == self)
      t.detach();  // joining itself would throw; the thread holds `e` until it returns
    else
      t.join();
  }
  workers_.clear();
  // Prefetched batches and captured errors go with the epoch; they may hold Python objects,
  // so they are released here, on the caller's thread, unless a detached worker still runs.
  std::map<int64_t, std::vector<Tensor>> ready;
  std::map<int64_t, std::exception_ptr> errors;
  {
    std::lock_guard<std::mutex> g(e->mu);
    ready.swap(e->ready);
    errors.swap(e->errors);
  }
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
  auto e = std::make_shared<Epoch>();
  e->source = source_;
  e->transforms = transforms_;
  e->opt = opt_;
  e->number = epoch_;
  if (order) {
    e->order = std::move(*order);
  } else {
    e->order.resize(size_t(n));
    std::iota(e->order.begin(), e->order.end(), 0);
  }
  if (opt_.shuffle && !order) {  // Fisher-Yates driven by Philox(seed, epoch): same order every run
    for (int64_t i = n - 1; i > 0; --i) {
      auto r = philox4x32(uint64_t(i), opt_.seed, uint32_t(epoch_) + 1);
      int64_t j = int64_t(((uint64_t(r[0]) << 32) | r[1]) % uint64_t(i + 1));
      std::swap(e->order[size_t(i)], e->order[size_t(j)]);
    }
  }
  e->running = opt_.num_workers;
  cur_ = e;
  for (int w = 0; w < opt_.num_workers; ++w) workers_.emplace_back(&Loader::worker_loop, e, w);
}

std::vector<Tensor> Loader::build(const Epoch& e, int64_t b) {
  const LoaderOptions& opt = e.opt;
  const Source& source = *e.source;
  int64_t start = b * opt.batch_size;
  int64_t end = std::min<int64_t>(start + opt.batch_size, int64_t(e.order.size()));
  std::vector<int64_t> idx(e.order.begin() + start, e.order.begin() + end);
  size_t ncols = size_t(source.num_columns());
  std::vector<Tensor> out(ncols);
  // Tensor-backed columns without transforms are gathered in one index_select; the rest
  // go sample by sample (one get() per sample for all of them).
  std::vector<size_t> per_sample;
  for (size_t c = 0; c < ncols; ++c) {
    if (e.transforms[c].empty() && source.fast_gather())
      out[c] = source.gather(int64_t(c), idx);
    else
      per_sample.push_back(c);
  }
  if (per_sample.empty()) return out;
  std::vector<std::vector<Tensor>> cols(ncols);
  uint64_t rng_seed = opt.seed ^ (uint64_t(e.number + 1) * 0x9E3779B97F4A7C15ULL);
  for (size_t k = 0; k < idx.size(); ++k) {
    std::vector<Tensor> sample = source.get(idx[k]);
    TANDEM_CHECK(sample.size() == ncols, ValueError, "DataLoader: sample ", idx[k], " has ",
                 sample.size(), " fields, expected ", ncols);
    Rng rng(rng_seed, uint64_t(start) + k);
    for (size_t c : per_sample) {
      Tensor v = sample[c];
      for (auto& t : e.transforms[c]) v = t->apply(v, rng);
      cols[c].push_back(v);
    }
  }
  for (size_t c : per_sample) out[c] = stack_samples(cols[c], "batch");
  return out;
}

void Loader::worker_loop(std::shared_ptr<Epoch> e, int w) {
  struct Done {
    std::atomic<int>& n;
    ~Done() { --n; }
  } done{e->running};
  omp_set_num_threads(1);  // workers run in parallel with each other, not inside ops
  int64_t total = e->num_batches();
  int64_t window = int64_t(e->opt.num_workers) * e->opt.prefetch_per_worker;
  for (int64_t b = w; b < total; b += e->opt.num_workers) {
    {
      std::unique_lock<std::mutex> g(e->mu);
      e->cv.wait(g, [&] { return e->stopping || b < e->next_batch + window; });
      if (e->stopping) return;
    }
    std::vector<Tensor> batch;
    std::exception_ptr err;
    try {
      batch = build(*e, b);
    } catch (abi::__forced_unwind&) {  // thread cancellation must keep unwinding
      throw;
    } catch (...) {
      err = std::current_exception();
    }
    {
      // Moved, not copied: the consumer must hold the last reference. A captured Python
      // exception released here (after the consumer dropped it) would run Python finalizers
      // on this thread, which may destroy the loader itself.
      std::lock_guard<std::mutex> g(e->mu);
      if (err)
        e->errors[b] = std::move(err);
      else
        e->ready[b] = std::move(batch);
    }
    e->cv.notify_all();
  }
}

std::vector<Tensor> Loader::next() {
  TANDEM_CHECK(epoch_ >= 0, Error, "DataLoader: next() called before start_epoch()");
  if (!cur_) return {};  // stopped
  // Held for the call: stop() from another thread (or from a finalizer run by a batch
  // released below) must not free the epoch under us.
  std::shared_ptr<Epoch> e = cur_;
  std::unique_lock<std::mutex> g(e->mu);
  if (e->next_batch >= e->num_batches()) return {};
  int64_t b = e->next_batch;
  if (workers_.empty()) {
    ++e->next_batch;
    g.unlock();
    return build(*e, b);
  }
  e->cv.wait(g, [&] { return e->stopping || e->ready.count(b) || e->errors.count(b); });
  std::vector<Tensor> out;
  if (e->stopping) return out;  // another thread ended the epoch
  if (auto it = e->errors.find(b); it != e->errors.end()) {
    std::exception_ptr err = std::move(it->second);
    e->errors.erase(it);
    ++e->next_batch;
    g.unlock();
    e->cv.notify_all();
    std::rethrow_exception(err);
  }
  out = std::move(e->ready[b]);
  e->ready.erase(b);
  ++e->next_batch;
  g.unlock();
  e->cv.notify_all();
  return out;
}

}  // namespace tandem::data
