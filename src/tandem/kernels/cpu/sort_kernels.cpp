#include "tandem/kernels/cpu/sort_kernels.h"

#include <omp.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/sort_order.h"

namespace tandem {
namespace {

template <typename T>
using Buffers = std::vector<std::vector<Keyed<T>>>;

// Runs body(row, buffer) for each of the O rows in parallel. Buffers are allocated here, before
// the parallel region, so an allocation failure throws on the calling thread.
template <typename T, typename F>
void for_rows(int64_t O, int64_t R, F&& body) {
  int nt = O > 1 ? parallel_threads(O * std::max<int64_t>(R, 1), 4096) : 1;
  nt = int(std::max<int64_t>(1, std::min<int64_t>(nt, O)));
  Buffers<T> bufs(static_cast<size_t>(nt), std::vector<Keyed<T>>(static_cast<size_t>(R)));
  parallel_region(nt, [&] {
#pragma omp for schedule(dynamic, 16)
    for (int64_t o = 0; o < O; ++o) body(o, bufs[size_t(omp_get_thread_num())]);
  });
}

template <typename T>
void load_row(const T* x, int64_t R, std::vector<Keyed<T>>& buf) {
  for (int64_t r = 0; r < R; ++r) buf[size_t(r)] = {x[r], r};
}

// Rows at least this long use the radix sort; shorter ones a comparison sort (same result).
constexpr int64_t kRadixMinRow = 128;

template <typename T>
void sort_typed(const T* x, int64_t O, int64_t R, bool desc, T* vals, int64_t* idx) {
  if (R < kRadixMinRow) {
    for_rows<T>(O, R, [&](int64_t o, std::vector<Keyed<T>>& buf) {
      load_row(x + o * R, R, buf);
      if (desc)
        std::sort(buf.begin(), buf.end(), KeyedDesc<T>{});
      else
        std::sort(buf.begin(), buf.end(), KeyedAsc<T>{});
      for (int64_t r = 0; r < R; ++r) {
        vals[o * R + r] = buf[size_t(r)].v;
        idx[o * R + r] = buf[size_t(r)].i;
      }
    });
    return;
  }
  int nt = int(std::max<int64_t>(1, std::min<int64_t>(parallel_threads(O * R, 4096), O)));
  std::vector<RadixScratch<RadixKey<T>>> scratch;
  scratch.reserve(size_t(nt));
  for (int t = 0; t < nt; ++t) scratch.emplace_back(R);
  parallel_region(nt, [&] {
#pragma omp for schedule(dynamic, 4)
    for (int64_t o = 0; o < O; ++o) {
      auto& s = scratch[size_t(omp_get_thread_num())];
      const T* row = x + o * R;
      radix_argsort(row, R, desc, s);
      for (int64_t r = 0; r < R; ++r) {
        int64_t i = s.idx[size_t(r)];
        vals[o * R + r] = row[i];
        idx[o * R + r] = i;
      }
    }
  });
}

template <typename T, typename Cmp>
void select_first_k(std::vector<Keyed<T>>& buf, int64_t k, Cmp cmp) {
  // nth_element + sorting the head is O(R + k log k), which beats partial_sort for large k.
  if (k < int64_t(buf.size())) std::nth_element(buf.begin(), buf.begin() + k, buf.end(), cmp);
  std::sort(buf.begin(), buf.begin() + k, cmp);
}

template <typename T>
void topk_typed(const T* x, int64_t O, int64_t R, int64_t k, bool largest, T* vals, int64_t* idx) {
  for_rows<T>(O, R, [&](int64_t o, std::vector<Keyed<T>>& buf) {
    load_row(x + o * R, R, buf);
    if (largest)
      select_first_k(buf, k, KeyedDesc<T>{});
    else
      select_first_k(buf, k, KeyedAsc<T>{});
    for (int64_t j = 0; j < k; ++j) {
      vals[o * k + j] = buf[size_t(j)].v;
      idx[o * k + j] = buf[size_t(j)].i;
    }
  });
}

template <typename T>
void kth_typed(const T* x, int64_t O, int64_t R, int64_t k, T* vals, int64_t* idx) {
  for_rows<T>(O, R, [&](int64_t o, std::vector<Keyed<T>>& buf) {
    load_row(x + o * R, R, buf);
    std::nth_element(buf.begin(), buf.begin() + k, buf.end(), KeyedAsc<T>{});
    vals[o] = buf[size_t(k)].v;
    idx[o] = buf[size_t(k)].i;
  });
}

template <typename T>
void median_typed(const T* x, int64_t O, int64_t R, bool ignore_nan, T* vals, int64_t* idx) {
  for_rows<T>(O, R, [&](int64_t o, std::vector<Keyed<T>>& buf) {
    const T* row = x + o * R;
    int64_t first_nan = -1, n_nan = 0;
    for (int64_t r = 0; r < R; ++r)
      if (is_nan_value(row[r])) {
        if (first_nan < 0) first_nan = r;
        ++n_nan;
      }
    if (first_nan >= 0 && (!ignore_nan || n_nan == R)) {
      vals[o] = row[first_nan];
      idx[o] = first_nan;
      return;
    }
    load_row(row, R, buf);
    // NaNs order last, so the lower median of the non-NaN part has rank (R - n_nan - 1) / 2.
    int64_t md = (R - n_nan - 1) / 2;
    std::nth_element(buf.begin(), buf.begin() + md, buf.end(), KeyedAsc<T>{});
    vals[o] = buf[size_t(md)].v;
    idx[o] = buf[size_t(md)].i;
  });
}

template <typename T>
void mode_typed(const T* x, int64_t O, int64_t R, T* vals, int64_t* idx) {
  for_rows<T>(O, R, [&](int64_t o, std::vector<Keyed<T>>& buf) {
    load_row(x + o * R, R, buf);
    std::sort(buf.begin(), buf.end(), KeyedAsc<T>{});
    int64_t best = 0, best_run = 0, run = 0;
    for (int64_t r = 0; r < R; ++r) {
      ++run;
      bool run_ends = r == R - 1 || order_less(buf[size_t(r)].v, buf[size_t(r + 1)].v);
      if (!run_ends) continue;
      if (run > best_run) {  // strict: the smallest value wins ties in frequency
        best_run = run;
        best = r;  // last of the run: the highest index of that value
      }
      run = 0;
    }
    vals[o] = buf[size_t(best)].v;
    idx[o] = buf[size_t(best)].i;
  });
}

}  // namespace

void sort_rows_kernel(const Tensor& x, int64_t O, int64_t R, bool descending, const Tensor& values,
                      const Tensor& indices) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), "sort", [&] {
    sort_typed<scalar_t>(x.data<scalar_t>(), O, R, descending, values.data<scalar_t>(),
                         indices.data<int64_t>());
  });
}

void topk_rows_kernel(const Tensor& x, int64_t O, int64_t R, int64_t k, bool largest,
                      const Tensor& values, const Tensor& indices) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), "topk", [&] {
    topk_typed<scalar_t>(x.data<scalar_t>(), O, R, k, largest, values.data<scalar_t>(),
                         indices.data<int64_t>());
  });
}

void kth_rows_kernel(const Tensor& x, int64_t O, int64_t R, int64_t k, const Tensor& values,
                     const Tensor& indices) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), "kthvalue", [&] {
    kth_typed<scalar_t>(x.data<scalar_t>(), O, R, k, values.data<scalar_t>(),
                        indices.data<int64_t>());
  });
}

void median_rows_kernel(const Tensor& x, int64_t O, int64_t R, bool ignore_nan,
                        const Tensor& values, const Tensor& indices) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), "median", [&] {
    median_typed<scalar_t>(x.data<scalar_t>(), O, R, ignore_nan, values.data<scalar_t>(),
                           indices.data<int64_t>());
  });
}

void mode_rows_kernel(const Tensor& x, int64_t O, int64_t R, const Tensor& values,
                      const Tensor& indices) {
  TANDEM_DISPATCH_COMPUTE(x.dtype(), "mode", [&] {
    mode_typed<scalar_t>(x.data<scalar_t>(), O, R, values.data<scalar_t>(),
                         indices.data<int64_t>());
  });
}

}  // namespace tandem
