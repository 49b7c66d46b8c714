// The im2col + GEMM convolution used for float64 (oneDNN has no f64 convolution) and as a
// reference in tests.
#include <cstring>
#include <vector>

#include "tandem/kernels/cpu/conv.h"
#include "tandem/kernels/cpu/gemm.h"

namespace tandem {
namespace conv_ref {

// cols (Cg * KH * KW, OH * OW) from one image's channel group.
template <typename T>
void im2col(const ConvParams& p, const T* x, int64_t Cg, T* cols) {
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t kh = 0; kh < p.KH; ++kh)
      for (int64_t kw = 0; kw < p.KW; ++kw) {
        T* row = cols + ((c * p.KH + kh) * p.KW + kw) * p.OH * p.OW;
        for (int64_t oh = 0; oh < p.OH; ++oh) {
          int64_t ih = oh * p.sh - p.pt + kh * p.dh;
          for (int64_t ow = 0; ow < p.OW; ++ow) {
            int64_t iw = ow * p.sw - p.pl + kw * p.dw;
            row[oh * p.OW + ow] =
                (ih >= 0 && ih < p.H && iw >= 0 && iw < p.W) ? x[(c * p.H + ih) * p.W + iw] : T(0);
          }
        }
      }
}

template <typename T>
void col2im(const ConvParams& p, const T* cols, int64_t Cg, T* x) {
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t kh = 0; kh < p.KH; ++kh)
      for (int64_t kw = 0; kw < p.KW; ++kw) {
        const T* row = cols + ((c * p.KH + kh) * p.KW + kw) * p.OH * p.OW;
        for (int64_t oh = 0; oh < p.OH; ++oh) {
          int64_t ih = oh * p.sh - p.pt + kh * p.dh;
          if (ih < 0 || ih >= p.H) continue;
          for (int64_t ow = 0; ow < p.OW; ++ow) {
            int64_t iw = ow * p.sw - p.pl + kw * p.dw;
            if (iw >= 0 && iw < p.W) x[(c * p.H + ih) * p.W + iw] += row[oh * p.OW + ow];
          }
        }
      }
}

template <typename T>
void forward(const ConvParams& p, DType dt, const T* x, const T* w, const T* b, T* y) {
  int64_t G = p.groups, Cg = p.C / G, Og = p.O / G, K = Cg * p.KH * p.KW, S = p.OH * p.OW;
  std::vector<T> cols(size_t(K * S));
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      im2col(p, x + (n * p.C + g * Cg) * p.H * p.W, Cg, cols.data());
      T* out = y + (n * p.O + g * Og) * S;
      gemm(dt, false, false, Og, S, K, 1.0, w + g * Og * K, K, cols.data(), S, 0.0, out, S);
      if (b)
        for (int64_t o = 0; o < Og; ++o)
          for (int64_t s = 0; s < S; ++s) out[o * S + s] += b[g * Og + o];
    }
}

template <typename T>
void backward_data(const ConvParams& p, DType dt, const T* gy, const T* w, T* gx) {
  int64_t G = p.groups, Cg = p.C / G, Og = p.O / G, K = Cg * p.KH * p.KW, S = p.OH * p.OW;
  std::vector<T> cols(size_t(K * S));
  std::memset(gx, 0, sizeof(T) * size_t(p.N * p.C * p.H * p.W));
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      // cols = W_g^T (K x Og) @ gy_g (Og x S)
      gemm(dt, true, false, K, S, Og, 1.0, w + g * Og * K, K, gy + (n * p.O + g * Og) * S, S, 0.0,
           cols.data(), S);
      col2im(p, cols.data(), Cg, gx + (n * p.C + g * Cg) * p.H * p.W);
    }
}

template <typename T>
void backward_weights(const ConvParams& p, DType dt, const T* x, const T* gy, T* gw, T* gb) {
  int64_t G = p.groups, Cg = p.C / G, Og = p.O / G, K = Cg * p.KH * p.KW, S = p.OH * p.OW;
  std::vector<T> cols(size_t(K * S));
  std::memset(gw, 0, sizeof(T) * size_t(p.O * K));
  if (gb) std::memset(gb, 0, sizeof(T) * size_t(p.O));
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      im2col(p, x + (n * p.C + g * Cg) * p.H * p.W, Cg, cols.data());
      const T* gyg = gy + (n * p.O + g * Og) * S;
      // gW_g (Og x K) += gy_g (Og x S) @ cols^T (S x K)
      gemm(dt, false, true, Og, K, S, 1.0, gyg, S, cols.data(), S, 1.0, gw + g * Og * K, K);
      if (gb)
        for (int64_t o = 0; o < Og; ++o)
          for (int64_t s = 0; s < S; ++s) gb[g * Og + o] += gyg[o * S + s];
    }
}

template void im2col<float>(const ConvParams&, const float*, int64_t, float*);
template void im2col<double>(const ConvParams&, const double*, int64_t, double*);
template void col2im<float>(const ConvParams&, const float*, int64_t, float*);
template void col2im<double>(const ConvParams&, const double*, int64_t, double*);
template void forward<double>(const ConvParams&, DType, const double*, const double*, const double*,
                              double*);
template void forward<float>(const ConvParams&, DType, const float*, const float*, const float*,
                             float*);
template void backward_data<double>(const ConvParams&, DType, const double*, const double*,
                                    double*);
template void backward_data<float>(const ConvParams&, DType, const float*, const float*, float*);
template void backward_weights<double>(const ConvParams&, DType, const double*, const double*,
                                       double*, double*);
template void backward_weights<float>(const ConvParams&, DType, const float*, const float*, float*,
                                      float*);

}  // namespace conv_ref
}  // namespace tandem
