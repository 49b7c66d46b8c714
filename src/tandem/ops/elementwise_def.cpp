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

// PyTorch's result_type over n tensors, tensor i being at(i): one definition for tensor
// arrays and pointer arrays.
template <class At>
DType result_type_at(size_t n, At at);
DType result_type_of(const Tensor* const* ts, size_t n) {
  return result_type_at(n, [&](size_t i) -> const Tensor& { return *ts[i]; });
}

// Operands by pointer: eager calls pass them so, and the vector entries point at theirs.
struct Operands {
  const Tensor* p[kMaxEwInputs];
  int n;
  explicit Operands(const std::vector<Tensor>& v) : n(int(v.size())) {
    TANDEM_CHECK(n <= kMaxEwInputs, Error, "internal: too many elementwise inputs");
    for (int i = 0; i < n; ++i) p[i] = &v[size_t(i)];
  }
};

DType compute_dtype(const OpDef& op, const Tensor* const* inputs, int n) {
  const EwInfo& info = info_of(op);
  DType t = result_type_of(inputs + info.promote_from, size_t(n - info.promote_from));
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
  return result_type_at(n, [&](size_t i) -> const Tensor& { return ts[i]; });
}

namespace {

template <class At>
DType result_type_at(size_t n, At at) {
  // Three classes, highest priority first: tensors with dims, 0-d tensors, Python numbers.
  int has[3] = {0, 0, 0};
  DType res[3] = {DType::Bool, DType::Bool, DType::Bool};
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = at(i);
    int cls = t.is_wrapped_number() ? 2 : (t.dim() == 0 ? 1 : 0);
    DType d = t.dtype();
    if (cls == 2 && is_floating(d)) d = default_float_dtype();
    res[cls] = has[cls] ? promote_types(res[cls], d) : d;
    has[cls] = 1;
  }
  DType low = combine(has[1], res[1], has[2], res[2]);
  return combine(has[0], res[0], has[1] | has[2], low);
}

}  // namespace

namespace {

// What infer returns, plus the compute dtype the kernel runs in.
struct EwMeta {
  TensorMeta meta;
  DType compute;
};

EwMeta ew_meta(const OpDef& op, const Tensor* const* inputs, int n, const Attrs& attrs) {
  const EwInfo& info = info_of(op);
  EwMeta r;
  Shape& shape = r.meta.shape;
  // Operands of one shape (the common case) skip broadcasting and its shape copies.
  shape = inputs[0]->shape();
  for (int i = 1; i < n; ++i)
    if (inputs[i]->shape() != shape)
      shape = broadcast_shapes(shape, inputs[i]->shape(), op.name.c_str());
  if (info.no_bool) {
    bool all_bool = true;
    for (int i = 0; i < n; ++i) all_bool &= inputs[i]->dtype() == DType::Bool;
    TANDEM_CHECK(!all_bool, TypeError, op.name,
                 ": not supported for bool tensors; use logical_not / logical_xor instead");
  }
  DType ct = compute_dtype(op, inputs, n);
  DType out = ct;
  if (info.policy == EwPolicy::Compare || info.policy == EwPolicy::Logical ||
      info.policy == EwPolicy::Predicate)
    out = DType::Bool;
  const DType kt = opmath_dtype(ct);
  TANDEM_CHECK(info.table.fn[int(kt)], TypeError, op.name, ": not implemented for dtype ",
               dtype_name(ct));
  if (info.params_fit && is_floating(kt) && !attrs.empty())
    for (const char* name : info.params)
      if (name && attrs.has(name))
        check_scalar_fits(Scalar(attrs.get_float(name)), kt, op.name.c_str());
  r.meta.dtype = out;
  r.compute = ct;
  return r;
}

// Runs the op's function into `out` (any strides and dtype) in compute dtype `ct`.
void ew_launch(const OpDef& op, const Tensor* const* inputs, int n, DType ct, const Tensor& out,
               const Attrs& attrs) {
  const EwInfo& info = info_of(op);
  DType kt = opmath_dtype(ct);
  EwCall call;
  call.fn = info.table.fn[int(kt)];
  TANDEM_CHECK(call.fn, TypeError, op.name, ": not implemented for dtype ", dtype_name(kt));
  bool bool_out = info.policy == EwPolicy::Compare || info.policy == EwPolicy::Logical ||
                  info.policy == EwPolicy::Predicate;
  call.out_dtype = bool_out ? DType::Bool : kt;
  for (int i = 0; i < n; ++i) call.in_dtypes[i] = i < info.promote_from ? DType::Bool : kt;
  double params[3];
  for (int k = 0; k < 3; ++k)  // an absent parameter is 1 (alpha)
    params[k] = !info.params[k] ? 0.0
                : attrs.empty() ? 1.0
                                : attrs.get_float_or(info.params[k], 1.0);
  call.params = params;
  if (info.check != EwOperandCheck::None && !is_floating(kt) && n > 1)
    check_operand(op, info.check, *inputs[1], kt);
  run_elementwise(call, out, inputs, n);
}

}  // namespace

std::vector<TensorMeta> ew_infer(const OpDef& op, const std::vector<Tensor>& inputs,
                                 const Attrs& attrs) {
  Operands in(inputs);
  std::vector<TensorMeta> metas;
  metas.push_back(std::move(ew_meta(op, in.p, in.n, attrs).meta));
  return metas;
}

void ew_kernel(const OpDef& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
               const Attrs& attrs) {
  Operands in(inputs);
  ew_launch(op, in.p, in.n, compute_dtype(op, in.p, in.n), outputs[0], attrs);
}

Tensor ew_eager(const OpDef& op, const Tensor* const* inputs, int n, const Attrs& attrs) {
  EwMeta m = ew_meta(op, inputs, n, attrs);
  Tensor out = Tensor::empty_following(std::move(m.meta.shape), m.meta.dtype, inputs, n);
  ew_launch(op, inputs, n, m.compute, out, attrs);
  return out;
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
  op.eager = ew_eager;
  op.data = with_avx512_kernels(name, info);
  op.kernel_writes_any_out = true;
  op.out_follows_layout = true;
  return op;
}

}  // namespace tandem
