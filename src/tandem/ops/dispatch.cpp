#include "tandem/ops/dispatch.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/autocast.h"
#include "tandem/ops/hooks.h"

namespace tandem {
namespace {
struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, const OpDef*> by_name;
};
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}
bool aliases_any(const Tensor& out, const std::vector<Tensor>& inputs) {
  for (auto& t : inputs)
    if (t.shares_storage(out)) return true;
  return false;
}
// An op's fresh output: row-major, or laid out as its inputs for ops that ask.
Tensor allocate_output(const OpDef& op, TensorMeta&& m, const std::vector<Tensor>& inputs) {
  if (!op.out_follows_layout || inputs.size() > size_t(kMaxEwInputs))
    return Tensor::empty(std::move(m.shape), m.dtype);
  const Tensor* ptrs[kMaxEwInputs];
  for (size_t i = 0; i < inputs.size(); ++i) ptrs[i] = &inputs[i];
  return Tensor::empty_following(std::move(m.shape), m.dtype, ptrs, int(inputs.size()));
}
}  // namespace

void register_op(const OpDef* op) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.by_name[op->name] = op;
}

const OpDef* find_op(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : it->second;
}

std::vector<const OpDef*> all_ops() {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  std::vector<const OpDef*> out;
  for (auto& kv : r.by_name) out.push_back(kv.second);
  return out;
}

std::vector<Tensor> dispatch(const OpDef& op, const std::vector<Tensor>& given,
                             const Attrs& attrs) {
  std::vector<Tensor> cast;
  const std::vector<Tensor>& inputs = autocast_all(op, given, cast) ? cast : given;
  for (size_t i = 0; i < inputs.size(); ++i)
    TANDEM_CHECK(inputs[i].defined(), ValueError, op.name, ": input ", i, " is None");
  std::vector<Tensor> outs;
  if (TraceRecorder* tr = active_trace_recorder())
    outs = tr->record(op, inputs, attrs);
  else
    outs = execute(op, inputs, attrs);
  const AutogradHooks* ag = autograd_hooks();
  if (ag && ag->should_record(op, inputs)) ag->record(op, inputs, attrs, outs);
  return outs;
}

std::vector<Tensor> execute(const OpDef& op, const std::vector<Tensor>& inputs,
                            const Attrs& attrs) {
  // Ops a kernel calls are its implementation, not user calls: they never autocast.
  std::optional<AutocastGuard> no_autocast;
  if (autocast_state().mode != AutocastMode::Off)
    no_autocast.emplace(AutocastState{AutocastMode::Off, DType::BFloat16});
  std::vector<Tensor> outs;
  if (op.view) {
    outs.push_back(op.view(op, inputs, attrs));
    return outs;
  }
  std::vector<TensorMeta> metas = op.infer(op, inputs, attrs);
  outs.reserve(metas.size());
  for (auto& m : metas) outs.push_back(allocate_output(op, std::move(m), inputs));
  op.kernel(op, inputs, outs, attrs);
  return outs;
}

Tensor dispatch1(const OpDef& op, const std::vector<Tensor>& given, const Attrs& attrs) {
  std::vector<Tensor> cast;
  const std::vector<Tensor>& inputs = autocast_all(op, given, cast) ? cast : given;
  for (size_t i = 0; i < inputs.size(); ++i)
    TANDEM_CHECK(inputs[i].defined(), ValueError, op.name, ": input ", i, " is None");
  std::vector<Tensor> outs;
  if (TraceRecorder* tr = active_trace_recorder()) {
    outs = tr->record(op, inputs, attrs);
  } else {
    std::optional<AutocastGuard> no_autocast;  // as in execute()
    if (autocast_state().mode != AutocastMode::Off)
      no_autocast.emplace(AutocastState{AutocastMode::Off, DType::BFloat16});
    if (op.view) {
      outs.push_back(op.view(op, inputs, attrs));
    } else {
      std::vector<TensorMeta> metas = op.infer(op, inputs, attrs);
      outs.push_back(allocate_output(op, std::move(metas[0]), inputs));
      op.kernel(op, inputs, outs, attrs);
    }
  }
  const AutogradHooks* ag = autograd_hooks();
  if (ag && ag->should_record(op, inputs)) ag->record(op, inputs, attrs, outs);
  return std::move(outs[0]);
}

namespace {

Tensor dispatch_ptrs(const OpDef& op, const Tensor* const* ins, int n) {
  bool fast = op.eager && !active_trace_recorder() && autocast_state().mode == AutocastMode::Off;
  for (int i = 0; i < n && fast; ++i) fast = ins[i]->defined();  // dispatch1 raises for None
  if (fast) {
    const AutogradHooks* ag = autograd_hooks();
    if (!ag || !ag->should_record_ptrs(op, ins, n)) {
      static const Attrs none;
      return op.eager(op, ins, n, none);
    }
  }
  std::vector<Tensor> inputs;
  inputs.reserve(size_t(n));
  for (int i = 0; i < n; ++i) inputs.push_back(*ins[i]);
  return dispatch1(op, inputs);
}

}  // namespace

Tensor dispatch_unary(const OpDef& op, const Tensor& x) {
  const Tensor* ins[1] = {&x};
  return dispatch_ptrs(op, ins, 1);
}

Tensor dispatch_binary(const OpDef& op, const Tensor& a, const Tensor& b) {
  const Tensor* ins[2] = {&a, &b};
  return dispatch_ptrs(op, ins, 2);
}

bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;  // nothing is written
  for (size_t d = 0; d < t.shape().size(); ++d)
    if (t.shape()[d] > 1 && t.strides()[d] == 0) return true;
  return false;
}

void check_no_internal_overlap(const Tensor& out, const std::string& op) {
  TANDEM_CHECK(!has_internal_overlap(out), Error, op,
               ": unsupported operation: more than one element of the written-to tensor "
               "refers to a single memory location (an expanded view); clone() it before "
               "writing in place");
}

void dispatch_out(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                  const Tensor& out) {
  TANDEM_CHECK(!op.view, Error, "internal: ", op.name, " is a view op and has no out= form");
  TANDEM_CHECK(out.defined(), ValueError, op.name, ": the output tensor is None");
  for (size_t i = 0; i < inputs.size(); ++i)
    TANDEM_CHECK(inputs[i].defined(), ValueError, op.name, ": input ", i, " is None");
  std::vector<TensorMeta> metas = op.infer(op, inputs, attrs);
  TANDEM_CHECK(metas.size() == 1, Error, "internal: ", op.name, " has several outputs");
  TANDEM_CHECK(metas[0].shape == out.shape(), ValueError, op.name, ": output with shape ",
               shape_str(out.shape()), " doesn't match the broadcast shape ",
               shape_str(metas[0].shape));
  TANDEM_CHECK(can_cast(metas[0].dtype, out.dtype()), TypeError, op.name, ": result type ",
               dtype_name(metas[0].dtype), " can't be cast to the desired output type ",
               dtype_name(out.dtype()));
  // A destination whose elements share memory (an expanded view) would get one of several
  // results per location, silently: PyTorch refuses too. Writing one value everywhere
  // (fill_ and zero_, which mark their cast with the attribute "fill") stays allowed, as in
  // PyTorch; copy_ of a 0-d tensor and unary in-place ops (abs_) are refused like any other.
  if (!attrs.get_bool_or("fill", false)) check_no_internal_overlap(out, op.name);
  const AutogradHooks* ag = autograd_hooks();
  Tensor old = ag ? ag->prepare_inplace(op, out, inputs) : Tensor();
  if (TraceRecorder* tr = active_trace_recorder()) {
    tr->record_inplace(op, inputs, attrs, out);
    if (old.defined()) ag->record_inplace(op, inputs, attrs, out, old);
    return;
  }
  std::optional<AutocastGuard> no_autocast;  // as in execute()
  if (autocast_state().mode != AutocastMode::Off)
    no_autocast.emplace(AutocastState{AutocastMode::Off, DType::BFloat16});
  if (op.kernel_writes_any_out ||
      (out.dtype() == metas[0].dtype && out.is_contiguous() && !aliases_any(out, inputs))) {
    std::vector<Tensor> outs{out};
    op.kernel(op, inputs, outs, attrs);
  } else {
    std::vector<Tensor> outs{Tensor::empty(metas[0].shape, metas[0].dtype)};
    op.kernel(op, inputs, outs, attrs);
    copy_into(out, outs[0]);
  }
  if (out.storage()) out.storage()->bump_version();
  if (old.defined()) ag->record_inplace(op, inputs, attrs, out, old);
}

}  // namespace tandem
