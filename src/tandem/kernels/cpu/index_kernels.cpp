#include "tandem/kernels/cpu/index_kernels.h"

#include <cstring>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {

void gather_blocks(const Tensor& src, const std::vector<int64_t>& offsets, int64_t inner,
                   const Tensor& dst) {
  size_t isz = src.itemsize();
  const char* s = static_cast<const char*>(src.data_ptr());
  char* d = static_cast<char*>(dst.data_ptr());
  int64_t n = int64_t(offsets.size());
  size_t block = size_t(inner) * isz;
  int nt = parallel_threads(n * inner, 1 << 16);
  parallel_region(nt, [&] {
#pragma omp for
    for (int64_t b = 0; b < n; ++b)
      std::memcpy(d + b * block, s + offsets[b] * int64_t(isz), block);
  });
}

namespace {

// Walks every position of `shape` (row-major), calling f(linear, multi-index).
template <typename F>
void for_each_index(const Shape& shape, F&& f) {
  int64_t n = numel_of(shape);
  if (n == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t lin = 0; lin < n; ++lin) {
    f(lin, idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

template <typename T>
void apply_mode(T& dst, T v, int mode) {
  switch (mode) {
    case 0:
      dst = v;
      break;
    case 1:
      dst = T(dst + v);
      break;
    case 2:
      dst = T(dst * v);
      break;
    // amax / amin propagate NaN, as torch's scatter_reduce and amax do (v != v: v is NaN; a
    // NaN already in dst stays, since no comparison with it is true).
    case 3:
      dst = v > dst || v != v ? v : dst;
      break;
    default:
      dst = v < dst || v != v ? v : dst;
      break;
  }
}

}  // namespace

void scatter_kernel(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src,
                    int mode, bool wrap) {
  const int64_t* ip = index.data<int64_t>();
  int64_t dsize = out.shape()[dim], lo = wrap ? -dsize : 0;
  TANDEM_DISPATCH_COMPUTE(out.dtype(), "scatter", [&] {
    scalar_t* op = out.data<scalar_t>();
    const scalar_t* sp = src.data<scalar_t>();
    for_each_index(index.shape(), [&](int64_t lin, const std::vector<int64_t>& pos) {
      int64_t k = ip[lin];
      TANDEM_CHECK(k >= lo && k < dsize, IndexError, "scatter: index ", k,
                   " is out of bounds for dimension ", dim, " with size ", dsize);
      if (k < 0) k += dsize;
      int64_t off = 0, soff = 0;
      for (size_t d = 0; d < pos.size(); ++d) {
        off += (int64_t(d) == dim ? k : pos[d]) * out.strides()[d];
        soff += pos[d] * src.strides()[d];
      }
      apply_mode(op[off], sp[soff], mode);
    });
  });
}

void gather_kernel(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out,
                   bool wrap) {
  const int64_t* ip = index.data<int64_t>();
  int64_t dsize = x.shape()[dim], lo = wrap ? -dsize : 0;
  size_t isz = x.itemsize();
  const char* xp = static_cast<const char*>(x.data_ptr());
  char* op = static_cast<char*>(out.data_ptr());
  for_each_index(index.shape(), [&](int64_t lin, const std::vector<int64_t>& pos) {
    int64_t k = ip[lin];
    TANDEM_CHECK(k >= lo && k < dsize, IndexError, "gather: index ", k,
                 " is out of bounds for dimension ", dim, " with size ", dsize);
    if (k < 0) k += dsize;
    int64_t off = 0;
    for (size_t d = 0; d < pos.size(); ++d)
      off += (int64_t(d) == dim ? k : pos[d]) * x.strides()[d];
    std::memcpy(op + lin * int64_t(isz), xp + off * int64_t(isz), isz);
  });
}

}  // namespace tandem
