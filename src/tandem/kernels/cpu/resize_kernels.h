// Nearest and bilinear resampling of dense NCHW planes, forward and backward.
#pragma once
#include <cstdint>

#include "tandem/core/dtype.h"

namespace tandem {

struct ResizeParams {
  int64_t planes, H, W, OH, OW;
  bool align_corners = false;
  double scale_h = 0, scale_w = 0;  // input / output ratios; 0 = from the sizes
};

void resize_nearest(const ResizeParams& p, DType dt, const void* x, void* y);
void resize_nearest_backward(const ResizeParams& p, DType dt, const void* gy, void* gx);
void resize_bilinear(const ResizeParams& p, DType dt, const void* x, void* y);
void resize_bilinear_backward(const ResizeParams& p, DType dt, const void* gy, void* gx);

}  // namespace tandem
