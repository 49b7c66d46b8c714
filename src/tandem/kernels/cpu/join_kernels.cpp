#include "tandem/kernels/cpu/join_kernels.h"

#include <algorithm>
#include <cstring>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {

void tri_copy(const char* src, char* dst, int64_t batch, int64_t rows, int64_t cols,
              size_t itemsize, int64_t diagonal, bool upper) {
  int64_t n = batch * rows;
  size_t row_bytes = size_t(cols) * itemsize;
  int nt = parallel_threads(n * cols);
  parallel_region(nt, [&] {
#pragma omp for
    for (int64_t r = 0; r < n; ++r) {
      int64_t i = r % rows;
      // Row i keeps columns [0, split) for tril and [split, cols) for triu.
      int64_t split = std::clamp<int64_t>(upper ? i + diagonal : i + diagonal + 1, 0, cols);
      size_t at = size_t(split) * itemsize;
      const char* s = src + r * int64_t(row_bytes);
      char* d = dst + r * int64_t(row_bytes);
      size_t keep_from = upper ? at : 0, keep_to = upper ? row_bytes : at;
      if (s != d) std::memcpy(d + keep_from, s + keep_from, keep_to - keep_from);
      if (upper)
        std::memset(d, 0, at);
      else
        std::memset(d + at, 0, row_bytes - at);
    }
  });
}

namespace {
template <typename T>
void repeat_items(const T* s, T* d, int64_t m, int64_t reps, int nt) {
  parallel_region(nt, [&] {
#pragma omp for
    for (int64_t i = 0; i < m; ++i) std::fill_n(d + i * reps, reps, s[i]);
  });
}
}  // namespace

void repeat_blocks(const char* src, char* dst, int64_t outer, int64_t n, int64_t inner,
                   int64_t reps, size_t itemsize) {
  int64_t m = outer * n;
  int nt = parallel_threads(m * inner * reps);
  if (inner == 1) {  // single items: typed stores instead of tiny memcpys
    switch (itemsize) {
      case 1:
        return repeat_items(reinterpret_cast<const uint8_t*>(src), reinterpret_cast<uint8_t*>(dst),
                            m, reps, nt);
      case 2:
        return repeat_items(reinterpret_cast<const uint16_t*>(src),
                            reinterpret_cast<uint16_t*>(dst), m, reps, nt);
      case 4:
        return repeat_items(reinterpret_cast<const uint32_t*>(src),
                            reinterpret_cast<uint32_t*>(dst), m, reps, nt);
      case 8:
        return repeat_items(reinterpret_cast<const uint64_t*>(src),
                            reinterpret_cast<uint64_t*>(dst), m, reps, nt);
    }
  }
  size_t block = size_t(inner) * itemsize;
  parallel_region(nt, [&] {
#pragma omp for
    for (int64_t i = 0; i < m; ++i) {
      char* d = dst + i * reps * int64_t(block);
      for (int64_t k = 0; k < reps; ++k)
        std::memcpy(d + k * int64_t(block), src + i * int64_t(block), block);
    }
  });
}

namespace {
// Index into the interior [0, n) that border position q (q < 0 or q >= n) copies.
inline int64_t pad_source(int64_t q, int64_t n, PadMode mode) {
  switch (mode) {
    case PadMode::Reflect:
      return q < 0 ? -q : 2 * (n - 1) - q;
    case PadMode::Replicate:
      return q < 0 ? 0 : n - 1;
    default:  // circular
      return q < 0 ? q + n : q - n;
  }
}

template <typename T>
void pad_rows_typed(T* data, int64_t rows, int64_t l, int64_t n, int64_t r, PadMode mode,
                    const T* value, int nt) {
  int64_t w = l + n + r;
  parallel_region(nt, [&] {
#pragma omp for
    for (int64_t i = 0; i < rows; ++i) {
      T* in = data + i * w + l;
      if (mode == PadMode::Constant) {
        std::fill_n(in - l, l, *value);
        std::fill_n(in + n, r, *value);
        continue;
      }
      for (int64_t q = -l; q < 0; ++q) in[q] = in[pad_source(q, n, mode)];
      for (int64_t q = n; q < n + r; ++q) in[q] = in[pad_source(q, n, mode)];
    }
  });
}
}  // namespace

void pad_rows(char* data, int64_t rows, int64_t l, int64_t n, int64_t r, size_t itemsize,
              PadMode mode, const void* value) {
  int nt = parallel_threads(rows * (l + n + r));
  switch (itemsize) {
    case 1:
      return pad_rows_typed(reinterpret_cast<uint8_t*>(data), rows, l, n, r, mode,
                            static_cast<const uint8_t*>(value), nt);
    case 2:
      return pad_rows_typed(reinterpret_cast<uint16_t*>(data), rows, l, n, r, mode,
                            static_cast<const uint16_t*>(value), nt);
    case 4:
      return pad_rows_typed(reinterpret_cast<uint32_t*>(data), rows, l, n, r, mode,
                            static_cast<const uint32_t*>(value), nt);
    default:
      return pad_rows_typed(reinterpret_cast<uint64_t*>(data), rows, l, n, r, mode,
                            static_cast<const uint64_t*>(value), nt);
  }
}

int64_t repeat_total(const int64_t* reps, int64_t n, const char* op) {
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    TANDEM_CHECK(reps[i] >= 0, ValueError, op, ": repeats must be non-negative, but repeats[", i,
                 "] is ", reps[i]);
    TANDEM_CHECK(!__builtin_add_overflow(total, reps[i], &total), ValueError, op,
                 ": the repeats add up to more than fits in int64");
  }
  return total;
}

void repeat_index(const int64_t* reps, int64_t n, int64_t* out) {
  for (int64_t i = 0; i < n; ++i) out = std::fill_n(out, reps[i], i);
}

}  // namespace tandem
