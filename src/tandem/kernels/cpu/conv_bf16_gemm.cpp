// The weight gradient of a bfloat16 convolution as one GEMM over the whole batch:
//   gw (O x C*KH*KW) = gy (O x N*OH*OW) @ cols^T,
// cols (C*KH*KW x N*OH*OW) being the im2col of every image. oneDNN 2.6's direct bf16
// backward-weights kernel reaches a third of the CPU's bf16 peak when the output maps are
// small (ResNet's last stage, 3x3) or the convolution is strided, where its matmul reaches
// two to three times that. Measured at batch 32 on this machine kind (2 threads): 512
// channels on 3x3 maps 7.2 -> 3.3 ms, 64 -> 128 channels stride 2 on 24x24 4.0 -> 1.6 ms,
// 256 -> 512 stride 2 4.5 -> 1.6 ms; on 6x6 and larger stride-1 maps the two are level or the
// direct kernel wins, so those stay on it, as do convolutions of few input channels.
// Output maps under 32 positions go to the per-tap GEMMs first (conv_wgrad_taps.cpp), which
// skip the padding's zeros (3x3 maps, 512 channels: 4.3 -> 2.95 ms); this path keeps the
// strided convolutions on larger maps.
// x and gy may be channel-blocked (p.blocked, nChw16c): im2col and the transpose read them
// with the channel's lane offset and a stride of 16 elements along a row.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tandem/core/dtype.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/conv.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/gemm.h"

namespace tandem {

bool conv2d_bwd_weights_prefers_gemm(const ConvParams& p) {
  // Few input channels (a network's first layer) make a thin GEMM over a huge im2col:
  // 1 -> 64 channels 7x7 stride 2 on 96x96 took 4.6 ms that way against 1.7 ms direct.
  return p.groups == 1 && (p.OH * p.OW < 32 || ((p.sh > 1 || p.sw > 1) && p.C >= 32));
}

bool conv2d_backward_weights_bf16_gemm(const ConvParams& p, const void* x_, const void* gy_,
                                       void* gw, void* gb) {
  const int64_t P = p.OH * p.OW, NP = p.N * P, K = p.C * p.KH * p.KW;
  // Per-thread buffers kept between calls: a training step asks for the same sizes again.
  thread_local std::vector<uint16_t> cols, gyt;
  cols.resize(size_t(K * NP));
  gyt.resize(size_t(p.O * NP));
  const uint16_t* x = static_cast<const uint16_t*>(x_);
  const uint16_t* gy = static_cast<const uint16_t*>(gy_);
  uint16_t* cp = cols.data();
  uint16_t* tp = gyt.data();
  const int64_t es = p.blocked ? 16 : 1;  // elements between neighbours along a row
  const int nt = parallel_threads((K + p.O) * NP);
  // bf16 values are moved as bits: im2col and the transpose only place them.
  parallel_region(nt, [&] {
#pragma omp for schedule(static) nowait
    for (int64_t r = 0; r < K; ++r) {
      const int64_t c = r / (p.KH * p.KW), kh = (r / p.KW) % p.KH, kw = r % p.KW;
      // Output columns whose input column is inside the image: [ow0, ow1).
      const int64_t off = kw * p.dw - p.pl;  // iw = ow * sw + off
      int64_t ow0, ow1;
      conv_valid_range(p.OW, p.W, p.sw, p.pl, kw, p.dw, ow0, ow1);
      uint16_t* row = cp + r * NP;
      for (int64_t n = 0; n < p.N; ++n) {
        const uint16_t* xc = x + (p.blocked ? (n * p.C + c / 16 * 16) * p.H * p.W + c % 16
                                            : (n * p.C + c) * p.H * p.W);
        uint16_t* out = row + n * P;
        for (int64_t oh = 0; oh < p.OH; ++oh) {
          const int64_t ih = oh * p.sh - p.pt + kh * p.dh;
          uint16_t* o = out + oh * p.OW;
          if (ih < 0 || ih >= p.H) {
            std::fill(o, o + p.OW, uint16_t(0));  // 0x0000 is +0.0
            continue;
          }
          const uint16_t* xr = xc + (ih * p.W + off) * es;
          std::fill(o, o + ow0, uint16_t(0));
          if (p.sw == 1 && es == 1)
            std::copy(xr + ow0, xr + ow1, o + ow0);
          else
            for (int64_t ow = ow0; ow < ow1; ++ow) o[ow] = xr[ow * p.sw * es];
          std::fill(o + ow1, o + p.OW, uint16_t(0));
        }
      }
    }
    // gy (N, O, P) -> (O, N * P); blocked: element (n, o, q) at ((n * O + o - o % 16) * P + q)
    // * 16 + o % 16
#pragma omp for schedule(static)
    for (int64_t o = 0; o < p.O; ++o)
      for (int64_t n = 0; n < p.N; ++n) {
        uint16_t* to = tp + o * NP + n * P;
        if (!p.blocked) {
          std::copy(gy + (n * p.O + o) * P, gy + (n * p.O + o + 1) * P, to);
          continue;
        }
        const uint16_t* from = gy + (n * p.O + o / 16 * 16) * P + o % 16;
        for (int64_t q = 0; q < P; ++q) to[q] = from[q * 16];
      }
  });
  if (!gemm_bf16(false, true, p.O, K, NP, tp, NP, cp, NP, gw, K)) return false;
  if (gb) {
    uint16_t* b = static_cast<uint16_t*>(gb);
    for (int64_t o = 0; o < p.O; ++o) {
      float s = 0;  // float32 accumulation, as the GEMM's
      const uint16_t* row = tp + o * NP;
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < NP; ++i) s += bf16_to_float(row[i]);
      b[o] = float_to_bf16(s);
    }
  }
  return true;
}

}  // namespace tandem
