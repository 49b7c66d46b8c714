// The data-loading engine behind tandem.dataset and tandem.utils.data: indexes a source,
// applies per-sample transforms, stacks batches, and prefetches them on C++ worker threads
// into a bounded window so training never waits on data and memory stays bounded.
#pragma once
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "tandem/data/transforms.h"

namespace tandem::data {

// Random access to samples: each sample is one tensor per column.
class Source {
 public:
  virtual ~Source() = default;
  virtual int64_t size() const = 0;
  virtual int64_t num_columns() const = 0;
  virtual std::vector<Tensor> get(int64_t index) const = 0;
  // Column c of the samples at `indices`, stacked; sources backed by tensors gather directly.
  virtual Tensor gather(int64_t column, const std::vector<int64_t>& indices) const;
  // True when gather is cheaper than get per sample (tensor-backed columns).
  virtual bool fast_gather() const { return false; }
};

// Columns stored as tensors whose first dim is the sample index.
class TensorSource : public Source {
 public:
  explicit TensorSource(std::vector<Tensor> columns);
  int64_t size() const override { return n_; }
  int64_t num_columns() const override { return int64_t(columns_.size()); }
  std::vector<Tensor> get(int64_t index) const override;
  Tensor gather(int64_t column, const std::vector<int64_t>& indices) const override;
  bool fast_gather() const override { return true; }

 private:
  std::vector<Tensor> columns_;
  int64_t n_;
};

struct LoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;
  bool drop_last = false;
  int num_workers = 0;  // 0: batches are built on the calling thread
  int prefetch_per_worker = 2;
  uint64_t seed = 0;
};

// Stacks equally shaped tensors along a new dim 0; names the first mismatch.
Tensor stack_samples(const std::vector<Tensor>& samples, const char* what);

class Loader {
 public:
  Loader(std::shared_ptr<const Source> source, std::vector<std::vector<TransformPtr>> transforms,
         LoaderOptions options);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Batches in the current epoch (before the first one: of the source in its own order).
  int64_t num_batches() const;
  int64_t num_samples() const { return source_->size(); }
  const std::shared_ptr<const Source>& source() const { return source_; }
  // Starts the next epoch and its workers. The samples come in `order` (source indices, may
  // repeat or leave some out) when given, else in a fresh permutation seeded by (seed, epoch
  // number) when shuffling, else in source order. Random transforms draw from a generator
  // seeded by (seed, epoch, position in the epoch), so batches don't depend on num_workers.
  void start_epoch(std::optional<std::vector<int64_t>> order = std::nullopt);
  // The next batch (one stacked tensor per column); empty at the end of the epoch.
  // Rethrows an error raised while building that batch.
  std::vector<Tensor> next();
  int64_t epoch() const { return epoch_; }
  // Ends the current epoch early: stops and joins the workers, drops prefetched batches.
  // Safe to call from one of the epoch's own workers (a Python object released there can
  // destroy the loader): that thread is detached instead of joined, and the epoch's state
  // lives on until it has left.
  void stop();
  // True while worker threads may still read the source (this epoch is not fully built).
  bool busy() const;

 private:
  // Everything an epoch's workers touch, shared with them so that it outlives the Loader
  // when the Loader is destroyed on a worker thread.
  struct Epoch;
  static std::vector<Tensor> build(const Epoch& e, int64_t b);
  static void worker_loop(std::shared_ptr<Epoch> e, int w);

  std::shared_ptr<const Source> source_;
  std::vector<std::vector<TransformPtr>> transforms_;
  LoaderOptions opt_;
  int64_t epoch_ = -1;
  std::shared_ptr<Epoch> cur_;
  std::vector<std::thread> workers_;
};

}  // namespace tandem::data
