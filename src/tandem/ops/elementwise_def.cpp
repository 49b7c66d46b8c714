#include "tandem/ops/elementwise_def.h"

#include <atomic>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/avx512_kernels.h"
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {
namespace {

int category(DType t) {
  return t == DType::Bool ? 0 : (is_floating(t) ? 2 : 1);
}

// Combines a higher-priority result with a lower-priority one (PyTorch's
// combine_categories): the lower class only matters when it is a higher category.
DType combine(int has_higher, DType higher, int has_lower, DType lower) {
  if (!has_higher) return lower;
  if (!has_lower) return higher;
  if (category(higher) >= category(lower)) return higher;
  // lower is a higher category: e.g. int tensor + 0.5 -> float (the default float dtype).
  return promote_types(higher, lower);
}

const EwInfo& info_of(const OpDef& op) {
  return *static_cast<const EwInfo*>(op.data);
}

DType compute_dtype(const OpDef& op, const std::vector<Tensor>& inputs) {
  const EwInfo& info = info_of(op);
  DType t = result_type(inputs.data() + info.promote_from, inputs.size() - info.promote_from);
  switch (info.policy) {
    case EwPolicy::PromoteFloat:
      return is_floating(t) ? t : default_float_dtype();
    case EwPolicy::FloatOnly:
      TANDEM_CHECK(is_floating(t), TypeError, op.name, ": expected a floating point tensor, got ",
                   dtype_name(t), "; convert with .float() first");
      return t;
    case EwPolicy::Integral:
      TANDEM_CHECK(!is_floating(t), TypeError, op.name,
                   ": only integer and bool tensors are supported, got ", dtype_name(t));
      return t;
    case EwPolicy::Logical:
      return DType::Bool;
    default:
      return t;
  }
}

// torch.set_default_dtype's value: the type of Python floats in promotion and of integer
// true division. Atomic because ops may run on several Python threads.
std::atomic<DType> g_default_float{DType::Float32};

// Input 1 as the kernel will read it (converted to the compute dtype kt), tested for a
// value the integer kernel must not see. Runs before the kernel: a trap inside an OpenMP
// region could not be turned into an exception.
void check_operand(const OpDef& op, EwOperandCheck check, const Tensor& b, DType kt) {
  if (b.numel() == 0) return;
  Tensor v = b;
  if (b.dtype() != kt) {
    v = Tensor::empty(b.shape(), kt);
    copy_into(v, b);
  } else if (!b.is_contiguous()) {
    v = b.contiguous();
  }
  bool bad = false;
  const int64_t n = v.numel();
  TANDEM_DISPATCH_COMPUTE(kt, op.name.c_str(), [&] {
    const scalar_t* p = v.data<scalar_t>();
    if (check == EwOperandCheck::NonZero) {
      for (int64_t i = 0; i < n; ++i) bad |= p[i] == scalar_t(0);
    } else {
      for (int64_t i = 0; i < n; ++i) bad |= p[i] < scalar_t(0);
    }
  });
  if (!bad) return;
  // div(rounding_mode='trunc') is the op users call.
  const char* name = op.name == "div_trunc" ? "div" : op.name.c_str();
  if (check == EwOperandCheck::NonZero)
    throw_error<Error>(name, ": ZeroDivisionError (integer division by zero; a Python int ",
                       "divisor counts as 0 when it is 0 in the tensor's dtype, e.g. 256 for "
                       "int8)");
  throw_error<Error>(name, ": integers to negative integer powers are not allowed; convert ",
                     "the base to float first");
}

}  // namespace

DType default_float_dtype() {
  return g_default_float.load(std::memory_order_relaxed);
}

void set_default_float_dtype(DType t) {
  TANDEM_CHECK(t == DType::Float32 || t == DType::Float64, TypeError,
               "set_default_dtype: only float32 and float64 are supported, got ", dtype_name(t));
  g_default_float.store(t, std::memory_order_relaxed);
}

DType result_type(const std::vector<Tensor>& ts) {
  return result_type(ts.data(), ts.size());
}

DType result_type(const Tensor* ts, size_t n) {
  // Three classes, highest priority first: tensors with dims, 0-d tensors, Python numbers.
  int has[3] = {0, 0, 0};
  DType res[3] = {DType::Bool, DType::Bool, DType::Bool};
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = ts[i];
    int cls = t.is_wrapped_number() ? 2 : (t.dim() == 0 ? 1 : 0);
    DType d = t.dtype();
    if (cls == 2 && is_floating(d)) d = default_float_dtype();
    res[cls] = has[cls] ? promote_types(res[cls], d) : d;
    has[cls] = 1;
  }
  DType low = combine(has[1], res[1], has[2], res[2]);
  return combine(has[0], res[0], has[1] | has[2], low);
}

std::vector<TensorMeta> ew_infer(const OpDef& op, const std::vector<Tensor>& inputs,
                                 const Attrs& attrs) {
  const EwInfo& info = info_of(op);
  std::vector<TensorMeta> metas(1);
  Shape& shape = metas[0].shape;
  // Operands of one shape (the common case) skip broadcasting and its shape copies.
  shape = inputs[0].shape();
  for (size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i].shape() != shape)
      shape = broadcast_shapes(shape, inputs[i].shape(), op.name.c_str());
  if (info.no_bool) {
    bool all_bool = true;
    for (auto& t : inputs) all_bool &= t.dtype() == DType::Bool;
    TANDEM_CHECK(!all_bool, TypeError, op.name,
                 ": not supported for bool tensors; use logical_not / logical_xor instead");
  }
  DType ct = compute_dtype(op, inputs);
  DType out = ct;
  if (info.policy == EwPolicy::Compare || info.policy == EwPolicy::Logical ||
      info.policy == EwPolicy::Predicate)
    out = DType::Bool;
  const DType kt = opmath_dtype(ct);
  TANDEM_CHECK(info.table.fn[int(kt)], TypeError, op.name, ": not implemented for dtype ",
               dtype_name(ct));
  if (info.params_fit && is_floating(kt))
    for (const char* name : info.params)
      if (name && attrs.has(name))
        check_scalar_fits(Scalar(attrs.get_float(name)), kt, op.name.c_str());
  metas[0].dtype = out;
  return metas;
}

void ew_kernel(const OpDef& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
               const Attrs& attrs) {
  const EwInfo& info = info_of(op);
  DType kt = opmath_dtype(compute_dtype(op, inputs));
  EwCall call;
  call.fn = info.table.fn[int(kt)];
  TANDEM_CHECK(call.fn, TypeError, op.name, ": not implemented for dtype ", dtype_name(kt));
  bool bool_out = info.policy == EwPolicy::Compare || info.policy == EwPolicy::Logical ||
                  info.policy == EwPolicy::Predicate;
  call.out_dtype = bool_out ? DType::Bool : kt;
  for (size_t i = 0; i < inputs.size(); ++i)
    call.in_dtypes[i] = int(i) < info.promote_from ? DType::Bool : kt;
  double params[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k)
    if (info.params[k]) params[k] = attrs.get_float_or(info.params[k], 1.0);  // absent: alpha = 1
  call.params = params;
  if (info.check != EwOperandCheck::None && !is_floating(kt) && inputs.size() > 1)
    check_operand(op, info.check, inputs[1], kt);
  run_elementwise(call, outputs[0], inputs);
}

namespace {

// The op's info with the AVX-512 float kernels (kernels/cpu/avx512_kernels.h) in place of
// the baseline ones, where the CPU runs them; `info` itself otherwise.
const EwInfo* with_avx512_kernels(const char* name, const EwInfo* info) {
  const EwFnTable* fast = avx512_ew_table(name);
  if (!fast) return info;
  auto* patched = new EwInfo(*info);  // lives as long as the op: the whole process
  for (int d = 0; d < kNumDTypes; ++d)
    if (fast->fn[d]) patched->table.fn[d] = fast->fn[d];
  if (fast->vec32) patched->table.vec32 = fast->vec32;
  return patched;
}

}  // namespace

OpDef make_ew_op(const char* name, const EwInfo* info) {
  OpDef op;
  op.name = name;
  op.infer = ew_infer;
  op.kernel = ew_kernel;
  op.data = with_avx512_kernels(name, info);
  op.kernel_writes_any_out = true;
  return op;
}

}  // namespace tandem
