#include "tandem/kernels/cpu/resize_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {
namespace {

// PyTorch's area_pixel_compute_scale and source index rules.
double ratio(int64_t in, int64_t out, bool align, double given) {
  if (align) return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
  return given > 0 ? given : double(in) / double(out);
}
inline int64_t nearest_src(int64_t o, double r, int64_t in) {
  return std::min(int64_t(std::floor(double(o) * r)), in - 1);
}
struct Lerp {
  int64_t i0, i1;
  double w1;
};
inline Lerp linear_src(int64_t o, double r, int64_t in, bool align) {
  double s = align ? double(o) * r : std::max(0.0, (double(o) + 0.5) * r - 0.5);
  int64_t i0 = std::min(int64_t(s), in - 1);
  int64_t i1 = std::min(i0 + 1, in - 1);
  return {i0, i1, s - double(i0)};
}

template <typename T, bool Backward, bool Bilinear>
void run(const ResizeParams& p, const T* src, T* dst) {
  double rh = ratio(p.H, p.OH, p.align_corners, p.scale_h);
  double rw = ratio(p.W, p.OW, p.align_corners, p.scale_w);
  if (Backward) std::memset(dst, 0, sizeof(T) * size_t(p.planes * p.H * p.W));
  int nt = parallel_threads(p.planes * p.OH * p.OW, 1 << 14);
  parallel_region(nt, [&] {
#pragma omp for schedule(static)
    for (int64_t pl = 0; pl < p.planes; ++pl) {
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          int64_t o = (pl * p.OH + oh) * p.OW + ow;
          int64_t base = pl * p.H * p.W;
          if constexpr (!Bilinear) {
            int64_t i = base + nearest_src(oh, rh, p.H) * p.W + nearest_src(ow, rw, p.W);
            if (Backward)
              dst[i] += src[o];
            else
              dst[o] = src[i];
          } else {
            Lerp h = linear_src(oh, rh, p.H, p.align_corners),
                 w = linear_src(ow, rw, p.W, p.align_corners);
            T wh1 = T(h.w1), wh0 = T(1) - wh1, ww1 = T(w.w1), ww0 = T(1) - ww1;
            int64_t i00 = base + h.i0 * p.W + w.i0, i01 = base + h.i0 * p.W + w.i1;
            int64_t i10 = base + h.i1 * p.W + w.i0, i11 = base + h.i1 * p.W + w.i1;
            if (Backward) {
              T g = src[o];
              dst[i00] += wh0 * ww0 * g;
              dst[i01] += wh0 * ww1 * g;
              dst[i10] += wh1 * ww0 * g;
              dst[i11] += wh1 * ww1 * g;
            } else {
              dst[o] =
                  wh0 * (ww0 * src[i00] + ww1 * src[i01]) + wh1 * (ww0 * src[i10] + ww1 * src[i11]);
            }
          }
        }
    }
  });
}

template <bool Backward, bool Bilinear>
void typed(const ResizeParams& p, DType dt, const void* s, void* d) {
  if (dt == DType::Float32)
    return run<float, Backward, Bilinear>(p, static_cast<const float*>(s), static_cast<float*>(d));
  if (dt == DType::Float64)
    return run<double, Backward, Bilinear>(p, static_cast<const double*>(s),
                                           static_cast<double*>(d));
  throw_error<TypeError>("interpolate: expected float32 or float64, got ", dtype_name(dt));
}

}  // namespace

void resize_nearest(const ResizeParams& p, DType dt, const void* x, void* y) {
  typed<false, false>(p, dt, x, y);
}
void resize_nearest_backward(const ResizeParams& p, DType dt, const void* gy, void* gx) {
  typed<true, false>(p, dt, gy, gx);
}
void resize_bilinear(const ResizeParams& p, DType dt, const void* x, void* y) {
  typed<false, true>(p, dt, x, y);
}
void resize_bilinear_backward(const ResizeParams& p, DType dt, const void* gy, void* gx) {
  typed<true, true>(p, dt, gy, gx);
}

}  // namespace tandem
