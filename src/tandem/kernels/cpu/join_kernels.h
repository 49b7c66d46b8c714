// Byte-moving loops behind the copying shape ops (tril / triu, repeat_interleave).
#pragma once
#include <cstddef>
#include <cstdint>

namespace tandem {

// Keeps the lower (or upper) triangle of `batch` dense rows x cols matrices and zeroes the
// rest. Lower keeps column j of row i when j - i <= diagonal; upper when j - i >= diagonal.
// src and dst share one dense layout; src may equal dst, then only the zeroing happens.
// All-zero bytes are the zero of every dtype, so this works on raw items of `itemsize`.
void tri_copy(const char* src, char* dst, int64_t batch, int64_t rows, int64_t cols,
              size_t itemsize, int64_t diagonal, bool upper);

// dst[o, j * reps + k, i] = src[o, j, i] for dense src (outer, n, inner) and dense dst
// (outer, n * reps, inner): repeat_interleave with one repeat count.
void repeat_blocks(const char* src, char* dst, int64_t outer, int64_t n, int64_t inner,
                   int64_t reps, size_t itemsize);

enum class PadMode : int { Constant, Reflect, Replicate, Circular };

// Pads the last dim of `rows` dense rows of width l + n + r in place: each row's interior
// [l, l + n) is already written and its borders are filled from it (or with the item at
// `value` in constant mode). Reflect needs l, r < n; circular l, r <= n; replicate n > 0.
void pad_rows(char* data, int64_t rows, int64_t l, int64_t n, int64_t r, size_t itemsize,
              PadMode mode, const void* value);

// Sum of reps[0..n); throws ValueError naming `op` when an entry is negative.
int64_t repeat_total(const int64_t* reps, int64_t n, const char* op);
// out = [0] * reps[0] ++ [1] * reps[1] ++ ...; out holds repeat_total(reps, n) entries.
void repeat_index(const int64_t* reps, int64_t n, int64_t* out);

}  // namespace tandem
