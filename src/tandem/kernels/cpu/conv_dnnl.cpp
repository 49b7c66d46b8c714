// float32 and bfloat16 convolution on oneDNN. oneDNN picks blocked layouts (format_tag::any);
// user buffers stay plain NCHW / OIHW and are reordered in and out. Primitive descriptors,
// primitives and reorders are cached per shape and dtype so a training loop builds them once.
// bfloat16 runs on the CPU's dot-product instructions with float32 accumulation; every
// tensor of the call (bias and gradients too) is bfloat16, as autocast's conv is.
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>

#include "tandem/core/allocator.h"
#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/conv.h"
#include "tandem/kernels/cpu/dnnl_engine.h"

namespace tandem {
namespace conv_ref {
template <typename T>
void forward(const ConvParams&, DType, const T*, const T*, const T*, T*);
template <typename T>
void backward_data(const ConvParams&, DType, const T*, const T*, T*);
template <typename T>
void backward_weights(const ConvParams&, DType, const T*, const T*, T*, T*);
}  // namespace conv_ref

std::string ConvParams::key() const {
  std::ostringstream os;
  os << N << ',' << C << ',' << H << ',' << W << ',' << O << ',' << KH << ',' << KW << ',' << sh
     << ',' << sw << ',' << pt << ',' << pl << ',' << pb << ',' << pr << ',' << dh << ',' << dw
     << ',' << groups << ',' << int(act) << (blocked ? ",b" : "") << (plain_input ? ",p" : "");
  return os.str();
}

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

// Winograd F(4x4, 3x3) does 2.25x fewer multiplies than a direct 3x3 convolution and
// measured 1.5-1.7x faster for fwd+bwd on ResNet's 64- and 128-channel stages (24x24, 12x12)
// and on 56x56 maps, but slower with few channels and on small maps: its 4x4 tiles cover a
// 5x5 map with 64 outputs for 25, a 6x6 one with 64 for 36. At 6x6 and 7x7 it still wins
// once a batch gives 64 tiles (ResNet's 256-channel stage at batch 32: fwd+bwd 17.6 -> 15.9
// ms; 512 channels 74 -> 52 ms) and loses below that (batch 8: 4.6 -> 5.8 ms); at 5x5 and
// below it loses or ties.
// Its error is larger (~2e-6 of the output's magnitude against float64, direct ~3e-7),
// as with cuDNN's default algorithms; TANDEM_CONV_ALG=direct turns it off.
const std::string& forced_alg() {
  static const std::string forced = [] {
    const char* e = std::getenv("TANDEM_CONV_ALG");
    return std::string(e ? e : "");
  }();
  return forced;
}

// Our F(3x3, 3x3) kernels (conv_winograd3.cpp) where they fit; TANDEM_CONV_ALG=direct
// turns them off with oneDNN's Winograd.
bool use_winograd3(const ConvParams& p, DType dtype, ConvPass pass) {
  return dtype == DType::Float32 && forced_alg() != "direct" && !p.plain_input &&
         conv2d_prefers_winograd3(p, pass);
}

dnnl::algorithm alg_for(const ConvParams& p) {
  const std::string& forced = forced_alg();
  const bool wino = p.KH == 3 && p.KW == 3 && p.sh == 1 && p.sw == 1 && p.dh == 1 && p.dw == 1 &&
                    p.groups == 1 && p.C >= 32 && p.O >= 32 &&
                    ((p.OH >= 8 && p.OW >= 8) ||
                     (p.OH >= 6 && p.OW >= 6 && p.N * ((p.OH + 3) / 4) * ((p.OW + 3) / 4) >= 64));
  if (forced == "direct" || (!wino && forced != "winograd"))
    return dnnl::algorithm::convolution_direct;
  return dnnl::algorithm::convolution_winograd;
}

dnnl::engine& engine() {
  return dnnl_engine();
}

struct Descs {
  memory::desc src, wei, bias, dst;  // plain user layouts
  memory::desc src_any, wei_any, bias_any, dst_any;
  memory::dims strides, dil, pad_l, pad_r;
};

Descs descs_of(const ConvParams& p, dt type) {
  Descs d;
  memory::dims src{p.N, p.C, p.H, p.W}, dst{p.N, p.O, p.OH, p.OW}, bias{p.O};
  memory::dims wei = p.groups == 1
                         ? memory::dims{p.O, p.C, p.KH, p.KW}
                         : memory::dims{p.groups, p.O / p.groups, p.C / p.groups, p.KH, p.KW};
  const tag act = p.blocked ? tag::nChw16c : tag::nchw;
  d.src = memory::desc(src, type, p.plain_input ? tag::nchw : act);
  d.dst = memory::desc(dst, type, act);
  d.wei = memory::desc(wei, type, p.groups == 1 ? tag::oihw : tag::goihw);
  d.bias = memory::desc(bias, type, tag::x);
  d.src_any = memory::desc(src, type, tag::any);
  d.dst_any = memory::desc(dst, type, tag::any);
  d.wei_any = memory::desc(wei, type, tag::any);
  d.bias_any = memory::desc(bias, type, tag::any);
  d.strides = {p.sh, p.sw};
  d.dil = {p.dh - 1, p.dw - 1};  // oneDNN counts dilation from 0
  d.pad_l = {p.pt, p.pl};
  d.pad_r = {p.pb, p.pr};
  return d;
}

// A buffer in the layout a primitive wants, when the user's memory is not: one of a few
// per-thread buffers grown to the largest size needed and then reused, so calls after the
// first take no memory from the allocator (its cache would hold the blocks anyway).
struct Scratch {
  void* ptr = nullptr;
  size_t size = 0;
  void* get(size_t n) {
    if (n > size) {
      cpu_free(ptr, size);
      ptr = nullptr;
      size = 0;
      ptr = cpu_allocate(n);
      size = n;
    }
    return ptr;
  }
  ~Scratch() { cpu_free(ptr, size); }
};
// src / grad in, weights, dst / grad out, bias: one call uses each at most once.
thread_local Scratch scratch[4];

// Convolutions this small finish faster on one thread than a parallel region costs, and on
// a busy machine each region can wait a time slice for the other thread (gemm.cpp does the
// same for small products): they run, and have their primitives made, single-threaded.
class SmallOnOneThread {
 public:
  explicit SmallOnOneThread(const ConvParams& p)
      : prev_(double(p.N) * double(p.O) * double(p.OH) * double(p.OW) * double(p.C / p.groups) *
                          double(p.KH * p.KW) <
                      double(1 << 18)
                  ? omp_get_max_threads()
                  : 0) {
    if (prev_ > 1) omp_set_num_threads(1);
  }
  ~SmallOnOneThread() {
    if (prev_ > 1) omp_set_num_threads(prev_);
  }
  SmallOnOneThread(const SmallOnOneThread&) = delete;
  SmallOnOneThread& operator=(const SmallOnOneThread&) = delete;

 private:
  int prev_;
};

struct Reorder {
  bool needed = false;
  dnnl::reorder prim;
};

Reorder make_reorder(const memory::desc& from, const memory::desc& to) {
  Reorder r;
  r.needed = from != to;
  if (r.needed) r.prim = dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to));
  return r;
}

// Runs `r` from user memory into a scratch buffer, or aliases the user memory.
memory stage_in(const Reorder& r, const memory::desc& user, const memory::desc& want,
                const void* ptr, Scratch& s, dnnl::stream& strm) {
  memory um(user, engine(), const_cast<void*>(ptr));
  if (!r.needed) return um;
  memory m(want, engine(), s.get(want.get_size()));
  r.prim.execute(strm, um, m);
  return m;
}

memory stage_out(const Reorder& r, const memory::desc& user, const memory::desc& have, void* ptr,
                 Scratch& s) {
  if (!r.needed) return memory(user, engine(), ptr);
  return memory(have, engine(), s.get(have.get_size()));
}

struct Entry {
  Descs d;
  size_t elem = 4;     // bytes per element of every tensor of the call
  bool usable = true;  // false: bfloat16 that oneDNN would run on its reference kernel
  dnnl::algorithm alg = dnnl::algorithm::convolution_direct;  // the backward passes use it too
  dnnl::convolution_forward::primitive_desc fwd_pd;
  dnnl::convolution_forward fwd;
  Reorder fwd_src, fwd_wei, fwd_dst;  // user -> prim, user -> prim, prim -> user
  bool has_bwd_data = false, has_bwd_w = false;
  bool bwd_data_usable = true, bwd_w_usable = true;  // as `usable`, per backward pass
  dnnl::convolution_backward_data::primitive_desc bd_pd;
  dnnl::convolution_backward_data bd;
  Reorder bd_gy, bd_wei, bd_gx;
  dnnl::convolution_backward_weights::primitive_desc bw_pd;
  dnnl::convolution_backward_weights bw;
  Reorder bw_src, bw_gy, bw_gw;
};

std::mutex cache_mu;

bool is_reference(const std::string& impl) {
  return impl.find("ref") != std::string::npos;
}

// The cached primitives for a shape and thread count (one entry serves with and without
// bias: bias is always part of the descriptor and a zero buffer is passed when absent).
// oneDNN fixes a primitive's thread decomposition when it is created, so a primitive made
// for 1 thread would stay single-threaded after set_num_threads(2), and the reverse.
Entry& entry_for(const ConvParams& p, DType dtype) {
  threads::available();  // samples the load now and then (threads.h)
  static auto* cache = new std::unordered_map<std::string, std::unique_ptr<Entry>>();
  const bool bf16 = dtype == DType::BFloat16;
  std::lock_guard<std::mutex> g(cache_mu);
  auto& slot =
      (*cache)[p.key() + (bf16 ? "|bf16" : "") + "|t" + std::to_string(omp_get_max_threads())];
  if (slot) return *slot;
  auto e = std::make_unique<Entry>();
  e->d = descs_of(p, bf16 ? dt::bf16 : dt::f32);
  e->elem = bf16 ? 2 : 4;
  if (bf16 && !dnnl_native_bf16()) {
    e->usable = false;
    slot = std::move(e);
    return *slot;
  }
  const Descs& d = e->d;
  e->alg = alg_for(p);
  auto fdesc = dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, e->alg, d.src_any,
                                               d.wei_any, d.bias_any, d.dst_any, d.strides, d.dil,
                                               d.pad_l, d.pad_r);
  dnnl::primitive_attr attr;
  if (p.act != ConvParams::Act::None) {
    dnnl::post_ops ops;
    auto alg = p.act == ConvParams::Act::Relu      ? dnnl::algorithm::eltwise_relu
               : p.act == ConvParams::Act::Sigmoid ? dnnl::algorithm::eltwise_logistic
                                                   : dnnl::algorithm::eltwise_tanh;
    ops.append_eltwise(1.0f, alg, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  try {
    e->fwd_pd = dnnl::convolution_forward::primitive_desc(fdesc, attr, engine());
  } catch (const dnnl::error&) {  // no Winograd kernel for this shape or CPU
    if (e->alg == dnnl::algorithm::convolution_direct) throw;
    e->alg = dnnl::algorithm::convolution_direct;
    fdesc = dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, e->alg, d.src_any,
                                            d.wei_any, d.bias_any, d.dst_any, d.strides, d.dil,
                                            d.pad_l, d.pad_r);
    e->fwd_pd = dnnl::convolution_forward::primitive_desc(fdesc, attr, engine());
  }
  if (bf16 && is_reference(e->fwd_pd.impl_info_str())) {
    e->usable = false;
    slot = std::move(e);
    return *slot;
  }
  e->fwd = dnnl::convolution_forward(e->fwd_pd);
  e->fwd_src = make_reorder(d.src, e->fwd_pd.src_desc());
  e->fwd_wei = make_reorder(d.wei, e->fwd_pd.weights_desc());
  e->fwd_dst = make_reorder(e->fwd_pd.dst_desc(), d.dst);
  slot = std::move(e);
  return *slot;
}

void ensure_bwd_data(Entry& e) {
  std::lock_guard<std::mutex> g(cache_mu);
  if (e.has_bwd_data) return;
  const Descs& d = e.d;
  // The input gradient of a convolution with few input channels (1-4: grayscale and RGB
  // images, the first layer) in plain NCHW: in oneDNN's blocked layout its channels are
  // padded to a block of 16 (8 with AVX2), so the pass wrote and computed 4-16x the data.
  // Measured fwd+bwd with the input's gradient, 2 threads: LeNet conv1 (256x1x28x28, 6 5x5)
  // 17.2 -> 7.5 ms, a 7x7 stem (32x1x96x96, 64) 181 -> 57 ms, 3 -> 64 channels 3x3 7.0 ->
  // 4.9 ms; with 6 channels (LeNet conv2) the blocked layout stays faster (4.3 vs 5.8 ms).
  const bool plain = e.elem == 4 && d.src.dims()[1] <= 4;  // float32: bf16 keeps its kernels
  auto desc = dnnl::convolution_backward_data::desc(e.alg, plain ? d.src : d.src_any, d.wei_any,
                                                    d.dst_any, d.strides, d.dil, d.pad_l, d.pad_r);
  e.bd_pd = dnnl::convolution_backward_data::primitive_desc(desc, engine(), e.fwd_pd);
  e.has_bwd_data = true;
  if (e.elem == 2 && is_reference(e.bd_pd.impl_info_str())) {
    e.bwd_data_usable = false;
    return;
  }
  e.bd = dnnl::convolution_backward_data(e.bd_pd);
  e.bd_gy = make_reorder(d.dst, e.bd_pd.diff_dst_desc());
  e.bd_wei = make_reorder(d.wei, e.bd_pd.weights_desc());
  e.bd_gx = make_reorder(e.bd_pd.diff_src_desc(), d.src);
}

void ensure_bwd_weights(Entry& e) {
  std::lock_guard<std::mutex> g(cache_mu);
  if (e.has_bwd_w) return;
  const Descs& d = e.d;
  auto desc = dnnl::convolution_backward_weights::desc(
      e.alg, d.src_any, d.wei_any, d.bias_any, d.dst_any, d.strides, d.dil, d.pad_l, d.pad_r);
  e.bw_pd = dnnl::convolution_backward_weights::primitive_desc(desc, engine(), e.fwd_pd);
  e.has_bwd_w = true;
  if (e.elem == 2 && is_reference(e.bw_pd.impl_info_str())) {
    e.bwd_w_usable = false;
    return;
  }
  e.bw = dnnl::convolution_backward_weights(e.bw_pd);
  e.bw_src = make_reorder(d.src, e.bw_pd.src_desc());
  e.bw_gy = make_reorder(d.dst, e.bw_pd.diff_dst_desc());
  e.bw_gw = make_reorder(e.bw_pd.diff_weights_desc(), d.wei);
}

// The callers ask conv2d_native_bf16 first; reaching an unusable entry is a bug there.
void check_usable(bool usable, const char* op) {
  TANDEM_CHECK(usable, Error, "internal: ", op,
               ": bfloat16 convolution called where oneDNN has no native kernel");
}

template <typename F>
void guarded(const char* op, F&& f) {
  try {
    f();
  } catch (const dnnl::error& err) {
    throw_error<Error>(op, ": oneDNN failed: ", err.what());
  }
}

// Constant weights in the layout of a primitive, made once per (primitive, weights) and kept
// until the least recently used copies exceed kPrepackBytes.
constexpr size_t kPrepackBytes = size_t(512) << 20;
struct Prepacked {
  std::shared_ptr<void> data;
  size_t bytes = 0;
  uint64_t last_use = 0;
};
std::mutex prepack_mu;

memory prepacked_weights(const Entry& e, const ConvParams& p, const void* w, dnnl::stream& strm) {
  static auto* cache = new std::unordered_map<std::string, Prepacked>();
  static uint64_t clock = 0;
  static size_t total = 0;
  const memory::desc want = e.fwd_pd.weights_desc();
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(&e)) + ":" +
                    std::to_string(p.weight_serial) + ":" + std::to_string(p.weight_offset);
  std::lock_guard<std::mutex> g(prepack_mu);
  Prepacked& slot = (*cache)[key];
  if (!slot.data) {
    const size_t n = want.get_size();
    slot.data = std::shared_ptr<void>(cpu_allocate(n), [n](void* q) { cpu_free(q, n); });
    slot.bytes = n;
    total += n;
    memory um(e.d.wei, engine(), const_cast<void*>(w));
    memory m(want, engine(), slot.data.get());
    e.fwd_wei.prim.execute(strm, um, m);
    strm.wait();
    while (total > kPrepackBytes && cache->size() > 1) {
      auto old = cache->end();
      for (auto it = cache->begin(); it != cache->end(); ++it)
        if (it->first != key && (old == cache->end() || it->second.last_use < old->second.last_use))
          old = it;
      total -= old->second.bytes;
      cache->erase(old);
    }
  }
  slot.last_use = ++clock;
  return memory(want, engine(), (*cache)[key].data.get());
}

}  // namespace

bool conv2d_native_bf16(const ConvParams& p, ConvPass pass) {
  if (!dnnl_native_bf16()) return false;
  // oneDNN blocks both channel dims by 16; with both below a block its bf16 weight-gradient
  // kernel measured 3-7x slower than the float32 one with the conversions (LeNet's first
  // layer, 1 -> 6 channels 5x5 at batch 64: 1.43 against 0.21 ms), so float32 it is.
  if (pass == ConvPass::BackwardWeights && p.C / p.groups < 16 && p.O / p.groups < 16) return false;
  bool ok = false;
  guarded("conv2d", [&] {
    SmallOnOneThread threads(p);
    Entry& e = entry_for(p, DType::BFloat16);
    if (!e.usable) return;
    if (pass == ConvPass::Forward) {
      ok = true;
    } else if (pass == ConvPass::BackwardData) {
      ensure_bwd_data(e);
      ok = e.bwd_data_usable;
    } else {
      ensure_bwd_weights(e);
      ok = e.bwd_w_usable;
    }
  });
  return ok;
}

void conv2d_forward(const ConvParams& p, DType dtype, const void* x, const void* w, const void* b,
                    void* y) {
  if (dtype == DType::Float64)
    return conv_ref::forward(p, dtype, static_cast<const double*>(x), static_cast<const double*>(w),
                             static_cast<const double*>(b), static_cast<double*>(y));
  if (use_winograd3(p, dtype, ConvPass::Forward))
    return conv2d_forward_winograd3(p, static_cast<const float*>(x), static_cast<const float*>(w),
                                    static_cast<const float*>(b), static_cast<float*>(y));
  guarded("conv2d", [&] {
    SmallOnOneThread threads(p);
    Entry& e = entry_for(p, dtype);
    check_usable(e.usable, "conv2d");
    dnnl::stream strm(engine());
    memory src = stage_in(e.fwd_src, e.d.src, e.fwd_pd.src_desc(), x, scratch[0], strm);
    memory wei = p.weight_serial && e.fwd_wei.needed
                     ? prepacked_weights(e, p, w, strm)
                     : stage_in(e.fwd_wei, e.d.wei, e.fwd_pd.weights_desc(), w, scratch[1], strm);
    memory dst = stage_out(e.fwd_dst, e.d.dst, e.fwd_pd.dst_desc(), y, scratch[2]);
    void* zb = nullptr;
    if (!b) {
      zb = scratch[3].get(size_t(p.O) * e.elem);
      std::memset(zb, 0, size_t(p.O) * e.elem);  // 0.0 in float32 and bfloat16
    }
    memory bias(e.d.bias, engine(), const_cast<void*>(b ? b : zb));
    e.fwd.execute(
        strm,
        {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}});
    if (e.fwd_dst.needed) {
      memory user(e.d.dst, engine(), y);
      e.fwd_dst.prim.execute(strm, dst, user);
    }
    strm.wait();
  });
}

void conv2d_backward_data(const ConvParams& p, DType dtype, const void* gy, const void* w,
                          void* gx) {
  if (dtype == DType::Float64)
    return conv_ref::backward_data(p, dtype, static_cast<const double*>(gy),
                                   static_cast<const double*>(w), static_cast<double*>(gx));
  if (use_winograd3(p, dtype, ConvPass::BackwardData))
    return conv2d_backward_data_winograd3(p, static_cast<const float*>(gy),
                                          static_cast<const float*>(w), static_cast<float*>(gx));
  guarded("conv2d_backward_input", [&] {
    SmallOnOneThread threads(p);
    Entry& e = entry_for(p, dtype);
    check_usable(e.usable, "conv2d_backward_input");
    ensure_bwd_data(e);
    check_usable(e.bwd_data_usable, "conv2d_backward_input");
    dnnl::stream strm(engine());
    memory dy = stage_in(e.bd_gy, e.d.dst, e.bd_pd.diff_dst_desc(), gy, scratch[0], strm);
    memory wei = stage_in(e.bd_wei, e.d.wei, e.bd_pd.weights_desc(), w, scratch[1], strm);
    memory dx = stage_out(e.bd_gx, e.d.src, e.bd_pd.diff_src_desc(), gx, scratch[2]);
    e.bd.execute(strm, {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, dx}});
    if (e.bd_gx.needed) {
      memory user(e.d.src, engine(), gx);
      e.bd_gx.prim.execute(strm, dx, user);
    }
    strm.wait();
  });
}

void conv2d_backward_weights(const ConvParams& p, DType dtype, const void* x, const void* gy,
                             void* gw, void* gb) {
  if (dtype == DType::Float64)
    return conv_ref::backward_weights(p, dtype, static_cast<const double*>(x),
                                      static_cast<const double*>(gy), static_cast<double*>(gw),
                                      static_cast<double*>(gb));
  if (use_winograd3(p, dtype, ConvPass::BackwardWeights))
    return conv2d_backward_weights_winograd3(p, static_cast<const float*>(x),
                                             static_cast<const float*>(gy), static_cast<float*>(gw),
                                             static_cast<float*>(gb));
  // (our kernels read x in the layout of gy)
  if (!p.plain_input && conv2d_bwd_weights_prefers_taps(p) &&
      conv2d_backward_weights_taps(p, dtype, x, gy, gw, gb))
    return;
  if (dtype == DType::BFloat16 && !p.plain_input && conv2d_bwd_weights_prefers_gemm(p) &&
      conv2d_backward_weights_bf16_gemm(p, x, gy, gw, gb))
    return;
  guarded("conv2d_backward_weight", [&] {
    SmallOnOneThread threads(p);
    Entry& e = entry_for(p, dtype);
    check_usable(e.usable, "conv2d_backward_weight");
    ensure_bwd_weights(e);
    check_usable(e.bwd_w_usable, "conv2d_backward_weight");
    dnnl::stream strm(engine());
    memory src = stage_in(e.bw_src, e.d.src, e.bw_pd.src_desc(), x, scratch[0], strm);
    memory dy = stage_in(e.bw_gy, e.d.dst, e.bw_pd.diff_dst_desc(), gy, scratch[1], strm);
    memory dw = stage_out(e.bw_gw, e.d.wei, e.bw_pd.diff_weights_desc(), gw, scratch[2]);
    memory db(e.d.bias, engine(), gb ? gb : scratch[3].get(size_t(p.O) * e.elem));
    e.bw.execute(strm, {{DNNL_ARG_SRC, src},
                        {DNNL_ARG_DIFF_DST, dy},
                        {DNNL_ARG_DIFF_WEIGHTS, dw},
                        {DNNL_ARG_DIFF_BIAS, db}});
    if (e.bw_gw.needed) {
      memory user(e.d.wei, engine(), gw);
      e.bw_gw.prim.execute(strm, dw, user);
    }
    strm.wait();
  });
}

}  // namespace tandem
