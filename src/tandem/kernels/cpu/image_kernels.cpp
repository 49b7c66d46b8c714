#include "tandem/kernels/cpu/image_kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tandem/core/error.h"

namespace tandem {
namespace {

template <typename Acc>
struct Taps {
  std::vector<int64_t> i0, i1;
  std::vector<Acc> w0, w1;
  Taps(int64_t in, int64_t out)
      : i0(size_t(out)), i1(size_t(out)), w0(size_t(out)), w1(size_t(out)) {
    double r = double(in) / double(out);
    for (int64_t o = 0; o < out; ++o) {
      double s = std::max(0.0, (double(o) + 0.5) * r - 0.5);
      int64_t a = std::min(int64_t(s), in - 1);
      i0[size_t(o)] = a;
      i1[size_t(o)] = std::min(a + 1, in - 1);
      w1[size_t(o)] = Acc(s - double(a));
      w0[size_t(o)] = Acc(1) - w1[size_t(o)];
    }
  }
};

template <typename T, typename Acc>
inline T store(Acc v) {
  if constexpr (std::is_same_v<T, uint8_t>)
    return uint8_t(std::clamp(std::nearbyint(v), Acc(0), Acc(255)));
  else
    return T(v);
}

template <typename T, typename Acc>
void resize(const T* src, T* dst, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW) {
  Taps<Acc> tx(W, OW), ty(H, OH);
  std::vector<Acc> rows(size_t(H * OW));
  for (int64_t p = 0; p < planes; ++p) {
    const T* s = src + p * H * W;
    T* d = dst + p * OH * OW;
    for (int64_t h = 0; h < H; ++h) {
      const T* in = s + h * W;
      Acc* r = rows.data() + h * OW;
      for (int64_t o = 0; o < OW; ++o)
        r[o] = tx.w0[size_t(o)] * Acc(in[tx.i0[size_t(o)]]) +
               tx.w1[size_t(o)] * Acc(in[tx.i1[size_t(o)]]);
    }
    for (int64_t oh = 0; oh < OH; ++oh) {
      const Acc* r0 = rows.data() + ty.i0[size_t(oh)] * OW;
      const Acc* r1 = rows.data() + ty.i1[size_t(oh)] * OW;
      Acc a = ty.w0[size_t(oh)], b = ty.w1[size_t(oh)];
      T* out = d + oh * OW;
      for (int64_t o = 0; o < OW; ++o) out[o] = store<T, Acc>(a * r0[o] + b * r1[o]);
    }
  }
}

}  // namespace

void resize_bilinear_image(DType dt, const void* src, void* dst, int64_t planes, int64_t H,
                           int64_t W, int64_t OH, int64_t OW) {
  switch (dt) {
    case DType::UInt8:
      return resize<uint8_t, float>(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst),
                                    planes, H, W, OH, OW);
    case DType::Float32:
      return resize<float, float>(static_cast<const float*>(src), static_cast<float*>(dst), planes,
                                  H, W, OH, OW);
    case DType::Float64:
      return resize<double, double>(static_cast<const double*>(src), static_cast<double*>(dst),
                                    planes, H, W, OH, OW);
    default:
      throw_error<TypeError>("Resize: expected a uint8, float32 or float64 image, got ",
                             dtype_name(dt));
  }
}

}  // namespace tandem
