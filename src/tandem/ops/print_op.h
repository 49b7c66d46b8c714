// The print op (see print_op.cpp).
#pragma once
#include <functional>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

// Called by every print node with the front end's format id and the values to print.
using PrintHook = std::function<void(int64_t format, const std::vector<Tensor>& values)>;
void set_print_hook(PrintHook h);
// Records (while tracing) or runs a print of `values`; `format` is passed to the hook.
void print_values(const std::vector<Tensor>& values, int64_t format);

}  // namespace tandem
