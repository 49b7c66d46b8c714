// Shapes, strides and the index arithmetic shared by views, broadcasting and kernels.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tandem {

using Shape = std::vector<int64_t>;
// The most dims a tensor may have: numpy's limit, so every tensor converts to an array, and
// the size of the kernels' fixed per-dim arrays.
constexpr size_t kMaxDims = 64;
using Strides = std::vector<int64_t>;  // in elements, may be 0 (broadcast) or negative

int64_t numel_of(const Shape& s);
// Row-major strides of a dense tensor with this shape.
Strides contiguous_strides(const Shape& s);
// Throws ValueError naming `op` when a shape has more than kMaxDims dims.
void check_ndim(const Shape& s, const char* op);
// A size argument of a creation op (full, empty, randn, ...): no negative dims, at most
// kMaxDims; throws ValueError naming `op`.
void check_sizes(const Shape& s, const char* op);
// "[2, 3]" for error messages and reprs.
std::string shape_str(const Shape& s);
// numpy broadcasting of two shapes; throws ValueError naming `op` when they don't match.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// Wraps a possibly negative dim into [0, ndim); throws IndexError naming `op` otherwise. A
// 0-d tensor has no dims: callers index shape()[result].
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
// As wrap_dim, but a 0-d tensor also takes dim 0 and -1 (returning 0), as PyTorch's
// reductions, scans, sorts, softmax, gather / scatter and flip do; callers must not index
// shape() with the result when ndim is 0.
int64_t wrap_dim_scalar(int64_t dim, int64_t ndim, const char* op);
// Strides that present a tensor of shape `from` as shape `to` under broadcasting.
Strides broadcast_strides(const Shape& from, const Strides& strides, const Shape& to);

}  // namespace tandem
