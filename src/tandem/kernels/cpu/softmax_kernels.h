// softmax / log_softmax over the middle dim of a dense (O, R, I) layout.
#pragma once
#include <cstdint>

#include "tandem/core/dtype.h"

namespace tandem {

void softmax_kernel(DType dt, bool log, const void* x, void* y, int64_t O, int64_t R, int64_t I);

}  // namespace tandem
