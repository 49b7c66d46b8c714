// Pooling loops over dense NCHW planes (float32 / float64), parallel over N * C planes; max
// pooling also over channel-blocked ones.
#pragma once
#include <cstdint>

#include "tandem/core/dtype.h"

namespace tandem {

struct PoolParams {
  int64_t planes, H, W, OH, OW;  // planes = N * C (N * C / lanes with lanes > 1)
  // Channels interleaved at each position (16: oneDNN's nChw16c, ops/layout.h; max pooling
  // only), their indices still within their own H x W plane.
  int64_t lanes = 1;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool count_include_pad = true;
  int64_t divisor_override = 0;  // 0 = none
};

// y and flat indices (ih * W + iw within the plane) of the max; NaN wins, as in PyTorch.
void max_pool2d_fwd(const PoolParams& p, DType dt, const void* x, void* y, int64_t* idx);
// gx (zeroed here) += gy at the saved indices (-1: none). Returns false, having skipped
// them, if any index lies outside [-1, H * W).
bool max_pool2d_bwd(const PoolParams& p, DType dt, const void* gy, const int64_t* idx, void* gx);
void avg_pool2d_fwd(const PoolParams& p, DType dt, const void* x, void* y);
void avg_pool2d_bwd(const PoolParams& p, DType dt, const void* gy, void* gx);
// Adaptive pooling: window [floor(o*In/Out), ceil((o+1)*In/Out)).
void adaptive_avg_pool2d_fwd(const PoolParams& p, DType dt, const void* x, void* y);
void adaptive_avg_pool2d_bwd(const PoolParams& p, DType dt, const void* gy, void* gx);
void adaptive_max_pool2d_fwd(const PoolParams& p, DType dt, const void* x, void* y, int64_t* idx);

}  // namespace tandem
