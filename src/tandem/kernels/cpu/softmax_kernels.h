// softmax / log_softmax over the middle dim of a dense (O, R, I) layout.
#pragma once
#include <cstdint>

#include "tandem/core/dtype.h"

namespace tandem {

void softmax_kernel(DType dt, bool log, const void* x, void* y, int64_t O, int64_t R, int64_t I);

}  // namespace tandem

namespace tandem {

// Fused backward over dense rows of length R (the softmax dim is the last one):
// softmax: gx = y * (gy - sum(gy * y)); log_softmax: gx = gy - exp(y) * sum(gy).
void softmax_backward_rows(DType dt, bool log, const void* y, const void* gy, void* gx,
                           int64_t rows, int64_t R);

}  // namespace tandem
