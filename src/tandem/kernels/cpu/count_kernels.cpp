#include "tandem/kernels/cpu/count_kernels.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/sort_order.h"

namespace tandem {
namespace {

template <typename T>
void unique_typed(const T* x, int64_t N, int64_t M, bool sort, std::vector<int64_t>& first,
                  std::vector<int64_t>& counts, std::vector<int64_t>& inverse) {
  std::vector<int64_t> order(static_cast<size_t>(N));
  std::iota(order.begin(), order.end(), int64_t(0));
  if (sort && M == 1) {
    // Single elements: the stable radix argsort (NaNs tie there, but never compare equal below).
    RadixScratch<RadixKey<T>> s(N);
    radix_argsort(x, N, false, s);
    order.swap(s.idx);
  } else if (sort) {
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const T* ra = x + a * M;
      const T* rb = x + b * M;
      for (int64_t k = 0; k < M; ++k) {
        if (order_less(ra[k], rb[k])) return true;
        if (order_less(rb[k], ra[k])) return false;
      }
      return a < b;  // equal rows keep input order, so the first occurrence leads its group
    });
  }
  auto same = [&](int64_t a, int64_t b) {
    const T* ra = x + a * M;
    const T* rb = x + b * M;
    for (int64_t k = 0; k < M; ++k)
      if (!(ra[k] == rb[k])) return false;
    return true;
  };
  inverse.assign(size_t(N), 0);
  for (int64_t j = 0; j < N; ++j) {
    int64_t row = order[size_t(j)];
    if (j == 0 || !same(order[size_t(j - 1)], row)) {
      first.push_back(row);
      counts.push_back(0);
    }
    ++counts.back();
    inverse[size_t(row)] = int64_t(first.size()) - 1;
  }
}

template <typename T, typename Out>
void searchsorted_typed(const T* seq, int64_t L, bool batched, const T* vals, int64_t rows,
                        int64_t per_row, bool right, Out* out) {
  int64_t n = rows * per_row;
  int nt = parallel_threads(n * std::max<int64_t>(1, int64_t(std::log2(double(L) + 1))), 8192);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t j = 0; j < n; ++j) {
      const T* s = batched ? seq + (j / per_row) * L : seq;
      T v = vals[j];
      // PyTorch's comparisons, so NaNs (which compare false) and unsorted sequences give its
      // answers: left moves right past every element not >= v, right past every one not > v.
      const T* p = right
                       ? std::upper_bound(s, s + L, v, [](T val, T mid) { return mid > val; })
                       : std::lower_bound(s, s + L, v, [](T mid, T val) { return !(mid >= val); });
      out[j] = Out(p - s);
    }
  });
}

template <typename W>
void bincount_typed(const int64_t* x, int64_t n, const W* w, W* out) {
  for (int64_t i = 0; i < n; ++i) out[x[i]] += w ? w[i] : W(1);
}

template <typename T>
void histc_typed(const T* x, int64_t n, int64_t bins, double lo, double hi, T* out) {
  std::vector<double> edges(size_t(bins) + 1);
  for (int64_t b = 0; b <= bins; ++b) edges[size_t(b)] = lo + (hi - lo) * double(b) / double(bins);
  edges[size_t(bins)] = hi;
  double scale = double(bins) / (hi - lo);
  std::vector<int64_t> cnt(size_t(bins), 0);
  for (int64_t i = 0; i < n; ++i) {
    double v = double(x[i]);
    if (!(v >= lo && v <= hi)) continue;  // also drops NaN
    int64_t b = std::min<int64_t>(int64_t((v - lo) * scale), bins - 1);
    // The linear guess can land one bin off next to an edge; the edges decide, as in numpy.
    if (b > 0 && v < edges[size_t(b)])
      --b;
    else if (b < bins - 1 && v >= edges[size_t(b + 1)])
      ++b;
    ++cnt[size_t(b)];
  }
  for (int64_t b = 0; b < bins; ++b) out[b] = T(cnt[size_t(b)]);
}

}  // namespace

void unique_rows_kernel(const Tensor& x, int64_t N, int64_t M, bool sort,
                        std::vector<int64_t>& first, std::vector<int64_t>& counts,
                        std::vector<int64_t>& inverse) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), "unique", [&] {
    unique_typed<scalar_t>(x.data<scalar_t>(), N, M, sort, first, counts, inverse);
  });
}

void searchsorted_kernel(const Tensor& seq, int64_t L, bool seq_batched, const Tensor& vals,
                         int64_t rows, bool right, const Tensor& out) {
  int64_t per_row = rows == 0 ? 0 : vals.numel() / rows;
  TANDEM_DISPATCH_COMPUTE(seq.dtype(), "searchsorted", [&] {
    const scalar_t* s = seq.data<scalar_t>();
    const scalar_t* v = vals.data<scalar_t>();
    if (out.dtype() == DType::Int32)
      searchsorted_typed(s, L, seq_batched, v, rows, per_row, right, out.data<int32_t>());
    else
      searchsorted_typed(s, L, seq_batched, v, rows, per_row, right, out.data<int64_t>());
  });
}

void bincount_kernel(const Tensor& x, const Tensor& weights, const Tensor& out) {
  const int64_t* xp = x.data<int64_t>();
  int64_t n = x.numel(), bins = out.numel();
  for (int64_t i = 0; i < n; ++i)
    TANDEM_CHECK(xp[i] >= 0 && xp[i] < bins, IndexError, "bincount: value ", xp[i], " at position ",
                 i, " is outside [0, ", bins, ")");
  switch (out.dtype()) {
    case DType::Int64: {
      int64_t* o = out.data<int64_t>();
      std::fill(o, o + bins, 0);
      bincount_typed<int64_t>(xp, n, nullptr, o);
      break;
    }
    case DType::Float32: {
      float* o = out.data<float>();
      std::fill(o, o + bins, 0.f);
      bincount_typed<float>(xp, n, weights.defined() ? weights.data<float>() : nullptr, o);
      break;
    }
    case DType::Float64: {
      double* o = out.data<double>();
      std::fill(o, o + bins, 0.0);
      bincount_typed<double>(xp, n, weights.defined() ? weights.data<double>() : nullptr, o);
      break;
    }
    default:
      throw_error<TypeError>("bincount: no kernel for output dtype ", dtype_name(out.dtype()));
  }
}

void histc_kernel(const Tensor& x, int64_t bins, double lo, double hi, const Tensor& out) {
  switch (x.dtype()) {
    case DType::Float32:
      histc_typed<float>(x.data<float>(), x.numel(), bins, lo, hi, out.data<float>());
      break;
    case DType::Float64:
      histc_typed<double>(x.data<double>(), x.numel(), bins, lo, hi, out.data<double>());
      break;
    default:
      throw_error<TypeError>("histc: no kernel for dtype ", dtype_name(x.dtype()));
  }
}

}  // namespace tandem
