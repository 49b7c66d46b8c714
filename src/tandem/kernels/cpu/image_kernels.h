// Loops of the data-pipeline image transforms.
#pragma once
#include <cstdint>

#include "tandem/core/dtype.h"

namespace tandem {

// Bilinear resize (align_corners=False, PyTorch's source-index rule) of `planes` dense
// H x W planes to OH x OW, separably: each input row is resampled horizontally once, then
// output rows blend two of those. uint8 is computed in float32 and rounded half-to-even and
// clamped straight into uint8, so images never take a float round trip. dt: uint8, float32
// or float64 (input and output).
void resize_bilinear_image(DType dt, const void* src, void* dst, int64_t planes, int64_t H,
                           int64_t W, int64_t OH, int64_t OW);

}  // namespace tandem
