#include "tandem/kernels/cpu/elementwise.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "tandem/core/error.h"

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
  // Drop size-1 dims, then merge dim j into the previous one when every operand allows it.
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
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
  // the larger of the last two dims innermost instead (order is free for elementwise ops).
  if (g.ndim >= 2 && g.shape[g.ndim - 1] < 16 && g.shape[g.ndim - 2] > g.shape[g.ndim - 1]) {
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
          convert_strided(src, 0, g.dtype[k], s.buf[k], int64_t(g.fn_size[k]), g.fn_dtype[k], n);
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
  // Owned per thread and freed when the thread exits: a raw leaked pointer would lose 40 KB
  // for every thread that ever ran a kernel (OpenMP pool resizes, Python threads).
  static thread_local std::unique_ptr<Scratch> scratch;
  if (!scratch) scratch.reset(new Scratch());
  Scratch& s = *scratch;
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

bool same_view(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.shape() == b.shape() && a.strides() == b.strides() &&
         a.dtype() == b.dtype();
}

}  // namespace

int parallel_threads(int64_t n, int64_t grain) {
  int64_t t = n / grain;
  int maxt = omp_get_max_threads();
  if (t <= 1 || omp_in_parallel()) return 1;
  return int(std::min<int64_t>(t, maxt));
}

namespace {

void run_impl(const EwCall& call, const Tensor* outs, int nout, const std::vector<Tensor>& inputs) {
  TANDEM_CHECK(nout >= 1 && nout <= kMaxEwOutputs && nout == call.num_outputs, Error,
               "internal: elementwise call with ", nout, " outputs");
  int64_t n = outs[0].numel();
  if (n == 0) return;
  TANDEM_CHECK(int(inputs.size()) <= kMaxEwInputs, Error, "internal: too many elementwise inputs");
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
  if (nt == 1) {
    run_range(call, g, 0, n);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num();
    int64_t chunk = (n + nt - 1) / nt;
    chunk = (chunk + 63) / 64 * 64;  // keep thread boundaries on cache lines
    int64_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
    if (b < e) run_range(call, g, b, e);
  }
}

}  // namespace

void run_elementwise(const EwCall& call, const Tensor& out, const std::vector<Tensor>& inputs) {
  run_impl(call, &out, 1, inputs);
}

void run_elementwise(const EwCall& call, const std::vector<Tensor>& outs,
                     const std::vector<Tensor>& inputs) {
  run_impl(call, outs.data(), int(outs.size()), inputs);
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
