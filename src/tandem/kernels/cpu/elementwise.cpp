#include "tandem/kernels/cpu/elementwise.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/cpu_features.h"

namespace tandem {
namespace {

constexpr int64_t kTile = 1024;  // elements per buffered tile: 8 KiB of float64, L1-resident
constexpr int kMaxOps = kMaxEwInputs + kMaxEwOutputs;

// Operands 0..nout-1 are the outputs, then the inputs; dims are coalesced, innermost last.
struct Geometry {
  int nops = 0;
  int nout = 1;
  int ndim = 0;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOps][kMaxDims];  // bytes
  char* base[kMaxOps];
  DType dtype[kMaxOps];     // storage dtype of each operand
  DType fn_dtype[kMaxOps];  // dtype the array function uses for it
  size_t fn_size[kMaxOps];
};

Geometry build_geometry(const EwCall& call, const Tensor* outs, int nout,
                        const std::vector<Tensor>& ins) {
  Geometry g;
  g.nout = nout;
  g.nops = int(ins.size()) + g.nout;
  const Shape& shape = outs[0].shape();
  check_ndim(shape, "elementwise");
  // Element strides of every operand broadcast to the output's shape (0 = broadcast).
  const size_t nd = shape.size();
  int64_t st[kMaxOps][kMaxDims];
  for (int k = 0; k < g.nout; ++k) {
    for (size_t d = 0; d < nd; ++d) st[k][d] = outs[size_t(k)].strides()[d];
    g.base[k] = static_cast<char*>(outs[size_t(k)].data_ptr());
    g.dtype[k] = outs[size_t(k)].dtype();
    g.fn_dtype[k] = call.out_dtype;
  }
  for (size_t i = 0; i < ins.size(); ++i) {
    const Tensor& t = ins[i];
    size_t off = nd - size_t(t.dim());
    int k = g.nout + int(i);
    for (size_t d = 0; d < nd; ++d)
      st[k][d] = d < off || t.shape()[d - off] == 1 ? 0 : t.strides()[d - off];
    g.base[k] = static_cast<char*>(t.data_ptr());
    g.dtype[k] = t.dtype();
    g.fn_dtype[k] = call.in_dtypes[i];
  }
  for (int k = 0; k < g.nops; ++k) g.fn_size[k] = itemsize(g.fn_dtype[k]);
  // Walk the dims in the first output's memory order, outermost first (the order of an
  // elementwise op is free): a result laid out like transposed inputs (a.T + b.T) or an
  // in-place op on a transposed view then runs as one dense pass instead of in tiles. Dims
  // where it has stride 0 or a negative stride keep row-major order.
  size_t order[kMaxDims];
  size_t nsorted = 0;
  bool sortable = true;
  for (size_t d = 0; d < nd; ++d)
    if (shape[d] != 1) {
      sortable &= st[0][d] > 0;
      order[nsorted++] = d;
    }
  if (sortable)  // insertion sort, stable; row-major outputs are already in order
    for (size_t j = 1; j < nsorted; ++j)
      for (size_t i = j; i > 0 && st[0][order[i - 1]] < st[0][order[i]]; --i)
        std::swap(order[i - 1], order[i]);
  // Drop size-1 dims, then merge dim j into the previous one when every operand allows it.
  for (size_t j = 0; j < nsorted; ++j) {
    const size_t d = order[j];
    if (g.ndim > 0) {
      bool mergeable = true;
      int p = g.ndim - 1;
      for (int k = 0; k < g.nops && mergeable; ++k)
        mergeable = g.strides[k][p] == st[k][d] * shape[d] * int64_t(itemsize(g.dtype[k]));
      if (mergeable) {
        g.shape[p] *= shape[d];
        for (int k = 0; k < g.nops; ++k) g.strides[k][p] = st[k][d] * int64_t(itemsize(g.dtype[k]));
        continue;
      }
    }
    g.shape[g.ndim] = shape[d];
    for (int k = 0; k < g.nops; ++k)
      g.strides[k][g.ndim] = st[k][d] * int64_t(itemsize(g.dtype[k]));
    g.ndim++;
  }
  // A tiny innermost dim (x.expand(n, 2)) would mean one call per couple of elements: walk
  // the larger of the last two dims innermost instead (order is free for elementwise ops),
  // unless every operand is dense along the tiny dim and would be strided along the other
  // (heads split from a feature dim, [B, heads, L, 8] read as [B, L, heads, 8]).
  bool inner_dense = g.ndim >= 1;
  for (int k = 0; k < g.nops && inner_dense; ++k)
    inner_dense = g.strides[k][g.ndim - 1] == int64_t(itemsize(g.dtype[k]));
  if (g.ndim >= 2 && !inner_dense && g.shape[g.ndim - 1] < 16 &&
      g.shape[g.ndim - 2] > g.shape[g.ndim - 1]) {
    int a = g.ndim - 2, b = g.ndim - 1;
    std::swap(g.shape[a], g.shape[b]);
    for (int k = 0; k < g.nops; ++k) std::swap(g.strides[k][a], g.strides[k][b]);
  }
  return g;
}

struct Scratch {
  alignas(64) char buf[kMaxOps][kTile * 8];
  const char* filled_from[kMaxOps];  // source of a broadcast-filled buffer, to skip refills
  int64_t filled[kMaxOps];           // how many elements of it are filled
};

// The calling thread's buffers (one call uses them at a time). Owned per thread and freed
// when the thread exits: a raw leaked pointer would lose them for every thread that ever ran
// a kernel (OpenMP pool resizes, Python threads).
Scratch& thread_scratch() {
  static thread_local std::unique_ptr<Scratch> scratch;
  if (!scratch) scratch.reset(new Scratch());
  return *scratch;
}

// buf[0, n) = the element at src converted to fn's dtype: one conversion, then a typed fill
// the compiler vectorizes (a strided copy with stride 0 would move one element per cycle).
void fill_converted(const char* src, DType dt, char* buf, DType fdt, size_t fsz, int64_t n) {
  convert_strided(src, 0, dt, buf, int64_t(fsz), fdt, 1);
  switch (fsz) {
    case 1:
      std::memset(buf, buf[0], size_t(n));
      break;
    case 2: {
      uint16_t v;
      std::memcpy(&v, buf, 2);
      std::fill_n(reinterpret_cast<uint16_t*>(buf), n, v);
      break;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, buf, 4);
      std::fill_n(reinterpret_cast<uint32_t*>(buf), n, v);
      break;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, buf, 8);
      std::fill_n(reinterpret_cast<uint64_t*>(buf), n, v);
    }
  }
}

// Calls fn with the output pointers in the form it expects (one pointer, or an array).
inline void call_fn(const EwCall& call, int nout, int64_t n, char* const* out,
                    const void* const* in) {
  if (nout == 1)
    call.fn(n, out[0], in, call.params);
  else
    call.fn(n, const_cast<char**>(out), in, call.params);
}

// Processes `len` elements of the innermost dim starting at per-operand pointers p.
void run_segment(const EwCall& call, const Geometry& g, char* const* p, int64_t len, Scratch& s) {
  int last = g.ndim - 1;
  const int no = g.nout;
  bool direct[kMaxOps];
  bool all_direct = true;
  for (int k = 0; k < g.nops; ++k) {
    int64_t stride = last >= 0 ? g.strides[k][last] : 0;
    direct[k] = g.dtype[k] == g.fn_dtype[k] && stride == int64_t(g.fn_size[k]);
    if (len == 1 && g.dtype[k] == g.fn_dtype[k]) direct[k] = true;
    all_direct &= direct[k];
  }
  const void* in[kMaxEwInputs];
  if (all_direct) {
    for (int k = no; k < g.nops; ++k) in[k - no] = p[k];
    call_fn(call, no, len, p, in);
    return;
  }
  char* dst[kMaxEwOutputs];
  for (int64_t t = 0; t < len; t += kTile) {
    int64_t n = std::min(kTile, len - t);
    for (int k = no; k < g.nops; ++k) {
      int64_t stride = last >= 0 ? g.strides[k][last] : 0;
      const char* src = p[k] + t * stride;
      if (direct[k]) {
        in[k - no] = src;
      } else if (stride == 0) {  // broadcast scalar along this dim: fill once, reuse
        // Fill only what this tile needs: short segments must not pay for a whole tile.
        if (s.filled_from[k] != src || s.filled[k] < n) {
          fill_converted(src, g.dtype[k], s.buf[k], g.fn_dtype[k], g.fn_size[k], n);
          s.filled_from[k] = src;
          s.filled[k] = n;
        }
        in[k - no] = s.buf[k];
      } else {
        convert_strided(src, stride, g.dtype[k], s.buf[k], int64_t(g.fn_size[k]), g.fn_dtype[k], n);
        in[k - no] = s.buf[k];
      }
    }
    for (int k = 0; k < no; ++k) {
      int64_t ostride = last >= 0 ? g.strides[k][last] : 0;
      dst[k] = direct[k] ? p[k] + t * ostride : s.buf[k];
    }
    call_fn(call, no, n, dst, in);
    for (int k = 0; k < no; ++k) {
      if (direct[k]) continue;
      int64_t ostride = last >= 0 ? g.strides[k][last] : 0;
      convert_strided(s.buf[k], int64_t(g.fn_size[k]), g.fn_dtype[k], p[k] + t * ostride, ostride,
                      g.dtype[k], n);
    }
  }
}

// Runs linear elements [begin, end) of the coalesced index space.
void run_range(const EwCall& call, const Geometry& g, int64_t begin, int64_t end) {
  Scratch& s = thread_scratch();
  for (int k = 0; k < kMaxOps; ++k) s.filled_from[k] = nullptr, s.filled[k] = 0;
  if (g.ndim == 0) {
    char* p[kMaxOps];
    for (int k = 0; k < g.nops; ++k) p[k] = g.base[k];
    run_segment(call, g, p, 1, s);
    return;
  }
  int last = g.ndim - 1;
  int64_t idx[kMaxDims];
  int64_t rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % g.shape[d];
    rem /= g.shape[d];
  }
  int64_t pos = begin;
  // Every operand dense along the innermost dim in fn's own dtype: call fn row by row,
  // stepping the row pointers instead of recomputing them (short rows: the per-row cost is
  // what a [B, heads, L, 8] copy pays).
  bool direct = g.ndim >= 2;
  for (int k = 0; k < g.nops && direct; ++k)
    direct = g.dtype[k] == g.fn_dtype[k] && g.strides[k][last] == int64_t(g.fn_size[k]);
  if (direct) {
    const int no = g.nout;
    char* row[kMaxOps];  // element (idx[0], ..., idx[last - 1], 0) of each operand
    auto locate = [&] {
      for (int k = 0; k < g.nops; ++k) {
        char* q = g.base[k];
        for (int d = 0; d < last; ++d) q += idx[d] * g.strides[k][d];
        row[k] = q;
      }
    };
    locate();
    while (pos < end) {
      const int64_t len = std::min(g.shape[last] - idx[last], end - pos);
      char* p[kMaxOps];
      const void* in[kMaxEwInputs];
      for (int k = 0; k < g.nops; ++k) p[k] = row[k] + idx[last] * g.strides[k][last];
      for (int k = no; k < g.nops; ++k) in[k - no] = p[k];
      call_fn(call, no, len, p, in);
      pos += len;
      idx[last] += len;
      if (idx[last] < g.shape[last]) break;  // the range ended inside this row
      idx[last] = 0;
      if (++idx[last - 1] < g.shape[last - 1]) {
        for (int k = 0; k < g.nops; ++k) row[k] += g.strides[k][last - 1];
        continue;
      }
      for (int d = last - 1; d > 0 && idx[d] == g.shape[d]; --d) {
        idx[d] = 0;
        idx[d - 1]++;
      }
      if (pos < end) locate();
    }
    return;
  }
  while (pos < end) {
    char* p[kMaxOps];
    for (int k = 0; k < g.nops; ++k) {
      char* q = g.base[k];
      for (int d = 0; d < g.ndim; ++d) q += idx[d] * g.strides[k][d];
      p[k] = q;
    }
    int64_t len = std::min(g.shape[last] - idx[last], end - pos);
    run_segment(call, g, p, len, s);
    pos += len;
    idx[last] += len;
    for (int d = last; d > 0 && idx[d] == g.shape[d]; --d) {
      idx[d] = 0;
      idx[d - 1]++;
    }
  }
}

// --- 2-D tiles for transposed operands ---------------------------------------------------
// An operand whose innermost stride is not unit but whose next dim is (a transposed view)
// would be read one element per cache line (and, for rows of 4 KiB, one page per element)
// if walked row by row. Such geometries run in tiles of the two innermost
// dims instead: transposed operands are transposed block-wise through L1 (reading along
// their unit-stride dim), operands already laid out along the buffer's lines are read or
// written in place, and fn runs once per buffer line (or once per tile when every operand
// is buffered). A tile is kTileWide lines across (16 four-byte lanes fill whole cache lines)
// of kTileLong 8-byte elements, or twice as many of 4 bytes or less (the same scratch
// bytes): a transposed operand's lines lie a row stride apart, and longer lines let the
// hardware prefetcher follow each one.
constexpr int64_t kTileLong = 64, kTileWide = 16, kTileDim = 16;
static_assert(2 * kTileLong * kTileWide * 4 <= kTile * 8, "a tile must fit the scratch buffers");

struct TileShape {
  bool colmajor;   // buffers are [nc][nr] (most operands are transposed) or [nr][nc]
  int64_t tr, tc;  // tile extent along dim last-1 (rows) and last (columns)
};

TileShape tile_shape(const Geometry& g);

bool is_transposed(const Geometry& g, int k) {
  int last = g.ndim - 1;
  int64_t unit = int64_t(itemsize(g.dtype[k]));
  return g.strides[k][last] != 0 && g.strides[k][last] != unit && g.strides[k][last - 1] == unit;
}

bool wants_tiles(const Geometry& g) {
  if (g.ndim < 2 || g.shape[g.ndim - 1] < kTileDim || g.shape[g.ndim - 2] < kTileDim) return false;
  for (int k = 0; k < g.nops; ++k)
    if (is_transposed(g, k)) return true;
  return false;
}

// dst[c][r] = src[r][c] for a rows x cols block of T (row strides in bytes).
template <typename T>
void transpose_scalar(const char* src, int64_t ss, char* dst, int64_t ds, int64_t rows,
                      int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* srow = reinterpret_cast<const T*>(src + r * ss);
    for (int64_t c = 0; c < cols; ++c)
      *reinterpret_cast<T*>(dst + c * ds + r * sizeof(T)) = srow[c];
  }
}

#if defined(__AVX__)
// In-register 8x8 transpose of 32-bit lanes (unpack, shuffle, cross-lane permute).
inline void transpose8x8(const char* src, int64_t ss, char* dst, int64_t ds) {
  __m256 r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * ss));
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + i * ds),
                     _mm256_permute2f128_ps(u[i], u[i + 4], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + (i + 4) * ds),
                     _mm256_permute2f128_ps(u[i], u[i + 4], 0x31));
  }
}
#endif

#if defined(__x86_64__)
// In-register 16x16 transpose of 32-bit lanes. Each destination row is one whole 64-byte
// line: with 8x8 blocks every line of a tile was written in two halves, and rows a power of
// two apart share cache sets, so half-written lines were evicted and fetched again.
// Compiled for AVX-512 whatever the build's baseline; called where the CPU has it.
__attribute__((target("avx512f"))) void transpose16x16(const char* src, int64_t ss, char* dst,
                                                       int64_t ds) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(reinterpret_cast<const float*>(src + i * ss));
  for (int i = 0; i < 16; i += 2) {  // 2x2 blocks of single lanes
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4)  // 4x4 blocks: pairs of lanes
    for (int j = 0; j < 2; ++j) {
      __m512d a = _mm512_castps_pd(t[i + j]), b = _mm512_castps_pd(t[i + j + 2]);
      r[i + j] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
      r[i + j + 2] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    }
  for (int i = 0; i < 16; i += 8)  // 8x8 blocks: 128-bit lanes
    for (int j = 0; j < 4; ++j) {
      t[i + j] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0x88);
      t[i + j + 4] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0xdd);
    }
  for (int j = 0; j < 8; ++j) {  // 16x16: 256-bit halves
    r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
    r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xdd);
  }
  // r[k] now holds column col[k] of the block (the 64-bit unpacks swap the middle pairs).
  static constexpr int col[16] = {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15};
  for (int k = 0; k < 16; ++k) _mm512_storeu_ps(reinterpret_cast<float*>(dst + col[k] * ds), r[k]);
}
#endif

// dst[c][r] = src[r][c] for 4- or 8-byte elements; register blocks where they fit.
void transpose_block(size_t size, const char* src, int64_t ss, char* dst, int64_t ds, int64_t rows,
                     int64_t cols) {
  if (size == 8) return transpose_scalar<uint64_t>(src, ss, dst, ds, rows, cols);
  int64_t r8 = 0, c8 = 0;
#if defined(__x86_64__)
  if (rows >= 16 && cols >= 16 && cpu_use_avx512()) {
    const int64_t r16 = rows / 16 * 16, c16 = cols / 16 * 16;
    for (int64_t r = 0; r < r16; r += 16)
      for (int64_t c = 0; c < c16; c += 16)
        transpose16x16(src + r * ss + c * 4, ss, dst + c * ds + r * 4, ds);
    if (c16 < cols) transpose_block(4, src + c16 * 4, ss, dst + c16 * ds, ds, r16, cols - c16);
    if (r16 < rows) transpose_block(4, src + r16 * ss, ss, dst + r16 * 4, ds, rows - r16, cols);
    return;
  }
#endif
#if defined(__AVX__)
  r8 = rows / 8 * 8, c8 = cols / 8 * 8;
  for (int64_t r = 0; r < r8; r += 8)
    for (int64_t c = 0; c < c8; c += 8)
      transpose8x8(src + r * ss + c * 4, ss, dst + c * ds + r * 4, ds);
#endif
  if (c8 < cols) transpose_scalar<uint32_t>(src + c8 * 4, ss, dst + c8 * ds, ds, r8, cols - c8);
  if (r8 < rows) transpose_scalar<uint32_t>(src + r8 * ss, ss, dst + r8 * 4, ds, rows - r8, cols);
}

// Moves one tile of operand k between its storage at p (rows at stride sr, columns at sc)
// and a contiguous buffer of fn's dtype, row-major [nr][nc] or column-major [nc][nr]; the
// tile's layout follows the majority of its operands, so a transposed add of transposed
// views copies instead of transposing. `load` chooses the direction.
void move_tile(const Geometry& g, int k, char* p, char* buf, int64_t nr, int64_t nc, bool colmajor,
               bool load) {
  int last = g.ndim - 1;
  int64_t sr = g.strides[k][last - 1], sc = g.strides[k][last];
  int64_t fsz = int64_t(g.fn_size[k]);
  DType dt = g.dtype[k], fdt = g.fn_dtype[k];
  // The operand's contiguous dim is across the buffer's: a register transpose.
  int64_t across = colmajor ? sc : sr;
  if (dt == fdt && (fsz == 4 || fsz == 8) && across == fsz && (colmajor ? sr : sc) != fsz) {
    if (colmajor) {  // storage rows (contiguous along c) -> buffer columns
      if (load)
        transpose_block(size_t(fsz), p, sr, buf, nr * fsz, nr, nc);
      else
        transpose_block(size_t(fsz), buf, nr * fsz, p, sr, nc, nr);
    } else {  // storage columns (contiguous along r) -> buffer rows
      if (load)
        transpose_block(size_t(fsz), p, sc, buf, nc * fsz, nc, nr);
      else
        transpose_block(size_t(fsz), buf, nc * fsz, p, sc, nr, nc);
    }
    return;
  }
  int64_t lines = colmajor ? nc : nr, len = colmajor ? nr : nc;
  int64_t step = colmajor ? sc : sr, along = colmajor ? sr : sc;
  if (dt == fdt && along == fsz) {  // contiguous lines of the same dtype: plain copies
    for (int64_t i = 0; i < lines; ++i) {
      if (load)
        std::memcpy(buf + i * len * fsz, p + i * step, size_t(len * fsz));
      else
        std::memcpy(p + i * step, buf + i * len * fsz, size_t(len * fsz));
    }
    return;
  }
  for (int64_t i = 0; i < lines; ++i) {
    if (load)
      convert_strided(p + i * step, along, dt, buf + i * len * fsz, fsz, fdt, len);
    else
      convert_strided(buf + i * len * fsz, fsz, fdt, p + i * step, along, dt, len);
  }
}

TileShape tile_shape(const Geometry& g) {
  int transposed = 0;
  for (int k = 0; k < g.nops; ++k) transposed += is_transposed(g, k) ? 1 : -1;
  bool colmajor = transposed > 0;
  size_t widest = 0;
  for (int k = 0; k < g.nops; ++k) widest = std::max(widest, g.fn_size[k]);
  const int64_t len = widest <= 4 ? 2 * kTileLong : kTileLong;
  return colmajor ? TileShape{true, len, kTileWide} : TileShape{false, kTileWide, len};
}

// Runs tiles [begin, end) of the tiled index space (outer dims x row blocks x column blocks).
void run_tiles(const EwCall& call, const Geometry& g, int64_t begin, int64_t end) {
  Scratch& s = thread_scratch();
  const int last = g.ndim - 1, no = g.nout;
  const int64_t R = g.shape[last - 1], C = g.shape[last];
  const TileShape ts = tile_shape(g);
  const bool colmajor = ts.colmajor;
  const int64_t rb = (R + ts.tr - 1) / ts.tr, cb = (C + ts.tc - 1) / ts.tc;
  bool line_direct[kMaxOps];
  int64_t line_step[kMaxOps];
  for (int k = 0; k < g.nops; ++k) {
    const int64_t along = colmajor ? g.strides[k][last - 1] : g.strides[k][last];
    line_direct[k] = g.dtype[k] == g.fn_dtype[k] && along == int64_t(g.fn_size[k]);
    line_step[k] = colmajor ? g.strides[k][last] : g.strides[k][last - 1];
  }
  for (int64_t t = begin; t < end; ++t) {
    int64_t bj = t % cb, bi = (t / cb) % rb, outer = t / (cb * rb);
    int64_t nr = std::min(ts.tr, R - bi * ts.tr), nc = std::min(ts.tc, C - bj * ts.tc);
    char* p[kMaxOps];
    for (int k = 0; k < g.nops; ++k) {
      char* q = g.base[k] + bi * ts.tr * g.strides[k][last - 1] + bj * ts.tc * g.strides[k][last];
      int64_t rem = outer;
      for (int d = last - 2; d >= 0; --d) {
        q += (rem % g.shape[d]) * g.strides[k][d];
        rem /= g.shape[d];
      }
      p[k] = q;
    }
    // Operands whose storage lines already run along the buffer's lines (the same dtype,
    // unit stride) are read and written in place, one fn call per line: copying them
    // through the buffer cost a third of a transposed add.
    const int64_t lines = colmajor ? nc : nr, len = colmajor ? nr : nc;
    bool any_direct = false;
    for (int k = 0; k < g.nops; ++k) any_direct |= line_direct[k];
    for (int k = no; k < g.nops; ++k)
      if (!line_direct[k]) move_tile(g, k, p[k], s.buf[k], nr, nc, colmajor, true);
    const void* in[kMaxEwInputs];
    char* out[kMaxEwOutputs];
    if (!any_direct) {
      for (int k = no; k < g.nops; ++k) in[k - no] = s.buf[k];
      for (int k = 0; k < no; ++k) out[k] = s.buf[k];
      call_fn(call, no, nr * nc, out, in);
    } else {
      for (int64_t i = 0; i < lines; ++i) {
        for (int k = 0; k < g.nops; ++k) {
          char* q =
              line_direct[k] ? p[k] + i * line_step[k] : s.buf[k] + i * len * int64_t(g.fn_size[k]);
          if (k < no)
            out[k] = q;
          else
            in[k - no] = q;
        }
        call_fn(call, no, len, out, in);
      }
    }
    for (int k = 0; k < no; ++k)
      if (!line_direct[k]) move_tile(g, k, p[k], s.buf[k], nr, nc, colmajor, false);
  }
}

bool same_view(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.shape() == b.shape() && a.strides() == b.strides() &&
         a.dtype() == b.dtype();
}

}  // namespace

int parallel_threads(int64_t n, int64_t grain) {
  int64_t t = n / grain;
  if (t <= 1 || omp_in_parallel()) return 1;
  return int(std::min<int64_t>(t, threads::available()));
}

namespace {
// body(thread, nt) on nt threads, reporting how unevenly they finished (threads.h).
template <typename Body>
void measured_region(int nt, const Body& body) {
  constexpr int kMaxTracked = 256;
  int64_t finish[kMaxTracked];
  nt = std::min(nt, kMaxTracked);
  int64_t start = threads::now_ns();
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num();
    body(t, omp_get_num_threads());
    finish[t] = threads::now_ns();
  }
  int64_t lo = finish[0], hi = finish[0];
  for (int t = 1; t < nt; ++t) lo = std::min(lo, finish[t]), hi = std::max(hi, finish[t]);
  threads::report(nt, threads::now_ns() - start, hi - lo);
}
}  // namespace

namespace {

// Whether fn can run once over the flat range: every output is dense, of one shape and of
// fn's dtype, and every input is either the same (and does not partly overlap an output), or
// a single value broadcast over at most one tile (a Python number: `x * 2`), which is then
// converted into a scratch buffer. `scalar` marks those inputs.
// Shapes compared inline: std::vector's == calls memcmp, a measurable share of an eager
// one-element op.
inline bool same_shape(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d)
    if (a[d] != b[d]) return false;
  return true;
}

bool flat_call(const EwCall& call, const Tensor* outs, int nout, const Tensor* const* ins, int nin,
               int64_t n, bool* scalar) {
  const Shape& shape = outs[0].shape();
  for (int k = 0; k < nout; ++k)
    if (outs[k].dtype() != call.out_dtype || !outs[k].is_contiguous() ||
        (k > 0 && !same_shape(outs[k].shape(), shape)))
      return false;
  for (int i = 0; i < nin; ++i) {
    const Tensor& t = *ins[i];
    scalar[i] = false;
    if (t.dtype() == call.in_dtypes[i] && same_shape(t.shape(), shape) && t.is_contiguous()) {
      for (int k = 0; k < nout; ++k)
        if (t.data_ptr() != outs[k].data_ptr() && t.overlaps(outs[k])) return false;
    } else if (t.numel() == 1 && n <= kTile) {
      scalar[i] = true;
    } else {
      return false;
    }
  }
  return true;
}

void run_general(const EwCall& call, const Tensor* outs, int nout,
                 const std::vector<Tensor>& inputs, int64_t n);

// `inputs` is either a vector (the general entry) or null with `ptrs` (eager calls, which
// pass their operands by pointer and build no vector unless the general path needs one).
void run_impl(const EwCall& call, const Tensor* outs, int nout, const std::vector<Tensor>* inputs,
              const Tensor* const* ptrs, int nin) {
  TANDEM_CHECK(nout >= 1 && nout <= kMaxEwOutputs && nout == call.num_outputs, Error,
               "internal: elementwise call with ", nout, " outputs");
  int64_t n = outs[0].numel();
  if (n == 0) return;
  TANDEM_CHECK(nin <= kMaxEwInputs, Error, "internal: too many elementwise inputs");
  const Tensor* from_vector[kMaxEwInputs];
  if (inputs) {
    for (int i = 0; i < nin; ++i) from_vector[i] = &(*inputs)[size_t(i)];
    ptrs = from_vector;
  }
  // Small dense calls (most eager ops on small tensors) skip the geometry, overlap copies and
  // tiling of run_general, whose bookkeeping (and 10 KB stack frame) costs more than the
  // arithmetic there. Large ones take the threaded path.
  bool scalar[kMaxEwInputs];
  if (n < 2 * kParallelGrain && flat_call(call, outs, nout, ptrs, nin, n, scalar)) {
    char* out_ptrs[kMaxEwOutputs];
    const void* in_ptrs[kMaxEwInputs];
    for (int k = 0; k < nout; ++k) out_ptrs[k] = static_cast<char*>(outs[k].data_ptr());
    for (int i = 0; i < nin; ++i) {
      in_ptrs[i] = ptrs[i]->data_ptr();
      if (!scalar[i]) continue;
      char* buf = thread_scratch().buf[i];
      DType fdt = call.in_dtypes[i];
      fill_converted(static_cast<const char*>(in_ptrs[i]), ptrs[i]->dtype(), buf, fdt,
                     itemsize(fdt), n);
      in_ptrs[i] = buf;
    }
    call_fn(call, nout, n, out_ptrs, in_ptrs);
    return;
  }
  if (inputs) {
    run_general(call, outs, nout, *inputs, n);
    return;
  }
  std::vector<Tensor> copy;
  copy.reserve(size_t(nin));
  for (int i = 0; i < nin; ++i) copy.push_back(*ptrs[i]);
  run_general(call, outs, nout, copy, n);
}

[[gnu::noinline]] void run_general(const EwCall& call, const Tensor* outs, int nout,
                                   const std::vector<Tensor>& inputs, int64_t n) {
  for (int k = 1; k < nout; ++k)
    TANDEM_CHECK(outs[k].shape() == outs[0].shape(), Error,
                 "internal: elementwise outputs of different shapes");
  // An input that overlaps an output without being the very same view is read from a copy,
  // so that `x[1:] += x[:-1]` sees the old values (numpy's semantics).
  std::vector<Tensor> ins;
  const std::vector<Tensor>* use = &inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool clash = false;
    for (int k = 0; k < nout; ++k)
      clash |= inputs[i].overlaps(outs[k]) && !same_view(inputs[i], outs[k]);
    if (!clash) continue;
    if (use == &inputs) ins = inputs, use = &ins;
    ins[i] = inputs[i].contiguous();
    bool still = false;
    for (int k = 0; k < nout; ++k) still |= ins[i].overlaps(outs[k]);
    if (still) {  // already contiguous: force a copy
      Tensor c = Tensor::empty(inputs[i].shape(), inputs[i].dtype());
      convert_strided(static_cast<const char*>(inputs[i].data_ptr()), int64_t(inputs[i].itemsize()),
                      inputs[i].dtype(), static_cast<char*>(c.data_ptr()), int64_t(c.itemsize()),
                      c.dtype(), c.numel());
      ins[i] = c;
    }
  }
  Geometry g = build_geometry(call, outs, nout, *use);
  int nt = parallel_threads(n);
  if (wants_tiles(g)) {
    int64_t tiles = 1;
    for (int d = 0; d < g.ndim - 2; ++d) tiles *= g.shape[d];
    TileShape ts = tile_shape(g);
    tiles *=
        ((g.shape[g.ndim - 2] + ts.tr - 1) / ts.tr) * ((g.shape[g.ndim - 1] + ts.tc - 1) / ts.tc);
    if (nt == 1 || tiles < 2) {
      run_tiles(call, g, 0, tiles);
      return;
    }
    nt = int(std::min<int64_t>(nt, tiles));
    measured_region(nt, [&](int t, int nthreads) {
      int64_t chunk = (tiles + nthreads - 1) / nthreads;
      int64_t b = std::min(tiles, t * chunk), e = std::min(tiles, b + chunk);
      if (b < e) run_tiles(call, g, b, e);
    });
    return;
  }
  if (nt == 1) {
    run_range(call, g, 0, n);
    return;
  }
  measured_region(nt, [&](int t, int nthreads) {
    int64_t chunk = (n + nthreads - 1) / nthreads;
    chunk = (chunk + 63) / 64 * 64;  // keep thread boundaries on cache lines
    int64_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
    if (b < e) run_range(call, g, b, e);
  });
}

}  // namespace

void run_elementwise(const EwCall& call, const Tensor& out, const std::vector<Tensor>& inputs) {
  run_impl(call, &out, 1, &inputs, nullptr, int(inputs.size()));
}

void run_elementwise(const EwCall& call, const Tensor& out, const Tensor* const* inputs, int n) {
  run_impl(call, &out, 1, nullptr, inputs, n);
}

void run_elementwise(const EwCall& call, const std::vector<Tensor>& outs,
                     const std::vector<Tensor>& inputs) {
  run_impl(call, outs.data(), int(outs.size()), &inputs, nullptr, int(inputs.size()));
}

namespace {
template <size_t N>
void copy_fn(int64_t n, void* out, const void* const* in, const double*) {
  std::memcpy(out, in[0], size_t(n) * N);
}
}  // namespace

void copy_into(const Tensor& dst, const Tensor& src) {
  EwCall call;
  switch (dst.itemsize()) {
    case 1:
      call.fn = copy_fn<1>;
      break;
    case 2:
      call.fn = copy_fn<2>;
      break;
    case 4:
      call.fn = copy_fn<4>;
      break;
    default:
      call.fn = copy_fn<8>;
      break;
  }
  call.out_dtype = dst.dtype();
  call.in_dtypes[0] = dst.dtype();
  run_elementwise(call, dst, {src});
}

}  // namespace tandem
