// Shared infer + kernel for every elementwise OpDef. An elementwise op is an OpDef whose
// `data` points at an EwInfo: its promotion policy, parameter names and ArrayFn table.
#pragma once
#include "tandem/kernels/cpu/ew_table.h"
#include "tandem/ops/op_def.h"

namespace tandem {

enum class EwPolicy : uint8_t {
  Promote,       // result = promoted input type (add, mul, maximum, abs)
  PromoteFloat,  // as Promote, but integers and bool compute in float32 (div, exp, sigmoid)
  FloatOnly,     // floating inputs only (erfinv on ints is an error in PyTorch too)
  Compare,       // compute in the promoted type, output bool (eq, lt)
  Logical,       // inputs read as bool, output bool (logical_and)
  Predicate,     // compute in the input's own type, output bool (isnan)
  Integral,      // integers and bool only (bitwise_and, shifts)
};

// A check of input 1's values, made by the kernel (so graph mode and wrapped Python numbers
// get it too) when the op computes in an integer type, before any element is computed.
enum class EwOperandCheck : uint8_t {
  None,
  NonZero,      // integer division: a zero divisor would trap (SIGFPE)
  NonNegative,  // integer pow: negative exponents are an error in PyTorch
};

struct EwInfo {
  EwPolicy policy;
  EwFnTable table;
  const char* params[3] = {nullptr, nullptr, nullptr};  // attr names -> EwP.a, .b, .c
  bool no_bool = false;  // reject bool tensors (sub, neg), as PyTorch does
  int promote_from = 0;  // inputs before this index don't take part in promotion (where's cond)
  EwOperandCheck check = EwOperandCheck::None;
  // The params must fit the float type the op computes in (torch's checked conversion of
  // alpha, negative_slope, beta, clamp bounds: 1e300 on float32 raises). Off for the ops
  // whose params torch converts unchecked (nan_to_num's replacements, isclose's tolerances).
  bool params_fit = true;
};

// The dtype Python floats promote as and integer true division returns (float32 unless
// set_default_dtype chose float64).
DType default_float_dtype();
void set_default_float_dtype(DType t);

// PyTorch's result_type over tensors, 0-d tensors and wrapped Python numbers.
DType result_type(const std::vector<Tensor>& ts);
DType result_type(const Tensor* ts, size_t n);
std::vector<TensorMeta> ew_infer(const OpDef& op, const std::vector<Tensor>& inputs,
                                 const Attrs& attrs);
void ew_kernel(const OpDef& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
               const Attrs& attrs);
// infer + allocate + kernel for operands passed by pointer (OpDef::eager).
Tensor ew_eager(const OpDef& op, const Tensor* const* inputs, int n, const Attrs& attrs);

// An OpDef for an elementwise op described by `info` (which must outlive it).
OpDef make_ew_op(const char* name, const EwInfo* info);

}  // namespace tandem
