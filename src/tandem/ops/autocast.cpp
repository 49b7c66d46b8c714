#include "tandem/ops/autocast.h"

#include "tandem/ops/elementwise.h"
#include "tandem/ops/op_def.h"

namespace tandem {
namespace {
thread_local AutocastState t_state;

bool is_low(DType d) {
  return d == DType::Float16 || d == DType::BFloat16;
}
}  // namespace

AutocastState autocast_state() {
  return t_state;
}
void set_autocast_state(AutocastState s) {
  t_state = s;
}

namespace {
// All mode at a composite's entry: its own checks (linear's same-dtype rule) must see the
// cast inputs, not only the primitives it dispatches.
Tensor cast_all(const Tensor& t) {
  if (!t.defined() || !is_floating(t.dtype()) || t.dtype() == t_state.dtype) return t;
  AutocastGuard off({AutocastMode::Off, t_state.dtype});
  return to_dtype(t, t_state.dtype, false);
}
}  // namespace

Tensor autocast_lower(const Tensor& t) {
  if (t_state.mode == AutocastMode::All) return cast_all(t);
  if (t_state.mode != AutocastMode::Lists || !t.defined() || t.dtype() != DType::Float32) return t;
  return to_dtype(t, t_state.dtype, false);
}

Tensor autocast_fp32(const Tensor& t) {
  if (t_state.mode == AutocastMode::All) return cast_all(t);
  if (t_state.mode != AutocastMode::Lists || !t.defined() || !is_low(t.dtype())) return t;
  return to_dtype(t, DType::Float32, false);
}

bool autocast_all(const OpDef& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& out) {
  if (t_state.mode != AutocastMode::All || op.name == "cast") return false;
  const DType want = t_state.dtype;
  bool any = false;
  for (const Tensor& t : inputs) any |= t.defined() && is_floating(t.dtype()) && t.dtype() != want;
  if (!any) return false;
  // The casts run with autocast off: a cast is itself dispatched.
  AutocastGuard off({AutocastMode::Off, want});
  out.clear();
  out.reserve(inputs.size());
  for (const Tensor& t : inputs)
    out.push_back(
        t.defined() && is_floating(t.dtype()) && t.dtype() != want ? to_dtype(t, want, false) : t);
  return true;
}

}  // namespace tandem
