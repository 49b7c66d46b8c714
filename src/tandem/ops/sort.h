// Scans (cumsum, cummax, ...), sorting and selection (sort, topk, median, ...), and the
// counting ops (unique, bincount, histc, searchsorted). Negative dims count from the end.
// Floating-point order puts NaN above every number, as PyTorch does.
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "tandem/core/tensor.h"

namespace tandem {

// --- scans -----------------------------------------------------------------------------------
// Running sum along dim; integers and bool accumulate in int64 unless dtype is given.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
// Running product along dim; integers and bool accumulate in int64 unless dtype is given.
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
// Running max along dim and the index where it was found (values, int64 indices).
std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);
// Running min along dim and the index where it was found (values, int64 indices).
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);
// log(cumsum(exp(x))) along dim, computed stably; integer inputs compute in float32.
Tensor logcumsumexp(const Tensor& x, int64_t dim);

// --- sorting and selection ---------------------------------------------------------------------
// Sorted values along dim and their source indices; always stable (ties keep input order).
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false,
                               bool stable = false);
// The indices that sort x along dim (sort(...).second).
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
// x sorted along dim 0.
Tensor msort(const Tensor& x);
// The k largest (or smallest) along dim, best first, with their indices; ties favour the lower
// index.
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true,
                               bool sorted = true);
// The k-th smallest (1-based) along dim and its index.
std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim = -1,
                                   bool keepdim = false);
// Lower median of all elements as a 0-d tensor (NaN when x holds a NaN or is empty).
Tensor median(const Tensor& x);
// Lower median along dim and its index; a row with a NaN gives its first NaN.
std::pair<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim = false);
// median ignoring NaNs (NaN only when every element is NaN).
Tensor nanmedian(const Tensor& x);
// nanmedian along dim and its index.
std::pair<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim = false);
// Most frequent value along dim (the smallest on ties) and the index of its last occurrence.
std::pair<Tensor, Tensor> mode(const Tensor& x, int64_t dim = -1, bool keepdim = false);

// --- counting and searching ------------------------------------------------------------------
// Output shapes of unique, unique_consecutive and bincount depend on the data, so these are
// eager composites that read their input (they cannot be traced into a static graph).
// (values, inverse, counts); inverse / counts are undefined unless requested. Without dim the
// input is flattened; with dim, whole slices along dim are compared. Always sorted; NaNs
// never compare equal, so each NaN is its own value (as in PyTorch).
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted = true,
                                          bool return_inverse = false, bool return_counts = false,
                                          std::optional<int64_t> dim = std::nullopt);
// unique over runs of equal neighbours only, in input order.
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
// Occurrences of each non-negative integer in 1-D x (summed weights when given).
Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = std::nullopt,
                int64_t minlength = 0);
// Histogram of x in `bins` equal bins over [min, max] (the data's range when min == max).
Tensor histc(const Tensor& x, int64_t bins = 100, double min = 0, double max = 0);
// Insertion points of `values` into the last dim of sorted_sequence (side "left" or "right";
// `right` is the older spelling). sorter, when given, holds the indices that sort the sequence.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);

}  // namespace tandem
