// Reductions (sum, mean, max, var, ...). `dims` = std::nullopt reduces every dimension;
// negative dims count from the end.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

using DimList = std::optional<std::vector<int64_t>>;

// dtype: accumulate and return in this type (PyTorch's dtype= argument).
Tensor sum(const Tensor& x, DimList dims = std::nullopt, bool keepdim = false,
           std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& x, DimList dims = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& x, DimList dims = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
Tensor amax(const Tensor& x, DimList dims = std::nullopt, bool keepdim = false);
Tensor amin(const Tensor& x, DimList dims = std::nullopt, bool keepdim = false);
// (min, max) of t's values, for argument checks that read data (index ranges, probabilities);
// nullopt when there is nothing to read: t is empty or symbolic, or a graph is being traced
// (even a captured constant's reductions are traced then).
std::optional<std::pair<Scalar, Scalar>> value_range(const Tensor& t);
// x, after checking that every element lies in [lo, hi] (a ValueError, or RuntimeError where
// torch raises that, "<what> should be between lo and hi, got a..b<hint>" otherwise): at once
// for concrete tensors, and when the compiled graph runs for symbolic ones (a pass-through
// node there).
Tensor check_between(const Tensor& x, double lo, double hi, const std::string& what,
                     const std::string& hint = "", bool runtime_error = false);
// x, after checking (as check_between does, now or when the graph runs) that its values
// convert to dtype t: check_scalar_fits' ValueError naming op otherwise.
Tensor check_fits(const Tensor& x, DType t, const char* op);
Tensor all(const Tensor& x, DimList dims = std::nullopt, bool keepdim = false);
Tensor any(const Tensor& x, DimList dims = std::nullopt, bool keepdim = false);
// (values, indices) along one dim.
std::pair<Tensor, Tensor> max_dim(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min_dim(const Tensor& x, int64_t dim, bool keepdim = false);
// Index of the max / min; over the flattened tensor when dim is empty.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
// Variance with Bessel-style correction (1 = unbiased, 0 = population).
Tensor var(const Tensor& x, DimList dims = std::nullopt, double correction = 1,
           bool keepdim = false);
Tensor std(const Tensor& x, DimList dims = std::nullopt, double correction = 1,
           bool keepdim = false);
std::pair<Tensor, Tensor> var_mean(const Tensor& x, DimList dims = std::nullopt,
                                   double correction = 1, bool keepdim = false);
std::pair<Tensor, Tensor> std_mean(const Tensor& x, DimList dims = std::nullopt,
                                   double correction = 1, bool keepdim = false);
Tensor logsumexp(const Tensor& x, DimList dims, bool keepdim = false);
// Vector p-norm (p = inf / -inf for max / min abs, 0 counts non-zeros).
Tensor norm(const Tensor& x, double p = 2, DimList dims = std::nullopt, bool keepdim = false);
Tensor count_nonzero(const Tensor& x, DimList dims = std::nullopt);

// The dims list normalised (wrapped, sorted, no duplicates); nullopt -> all dims.
std::vector<int64_t> normalize_dims(const DimList& dims, int64_t ndim, const char* op);
// Shape after reducing `dims` (sorted) of `shape`.
Shape reduced_shape(const Shape& shape, const std::vector<int64_t>& dims, bool keepdim);

}  // namespace tandem
