// print as an op: what print(t) inside a compiled function records (MindSpore graph mode's
// print, JAX's debug.print). It has no outputs and is stateful, so no pass removes, merges or
// folds it, and it runs on every call at its place in program order, printing the values the
// tensors have then. How values are shown is the front end's (Python formats them as eager
// print(t) does); without a front end they are written to stdout.
#include "tandem/ops/print_op.h"

#include <iostream>
#include <mutex>

#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"

namespace tandem {
namespace {

std::mutex& hook_mutex() {
  static std::mutex m;
  return m;
}

PrintHook& hook() {
  static PrintHook h;
  return h;
}

std::vector<TensorMeta> print_infer(const OpDef&, const std::vector<Tensor>&, const Attrs&) {
  return {};
}

void print_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>&,
                  const Attrs& attrs) {
  PrintHook h;
  {
    std::lock_guard<std::mutex> lock(hook_mutex());
    h = hook();
  }
  int64_t id = attrs.get_int_or("format", -1);
  if (h) {
    h(id, in);
    return;
  }
  for (const Tensor& t : in) {
    Tensor d = to_dtype(t, DType::Float64, true).contiguous();
    std::cout << "Tensor(shape=" << shape_str(t.shape()) << ", dtype=" << dtype_name(t.dtype())
              << ", value=";
    const double* p = d.data<double>();
    for (int64_t i = 0; i < d.numel() && i < 1000; ++i) std::cout << (i ? " " : "[") << p[i];
    std::cout << (d.numel() > 1000 ? " ...]" : d.numel() ? "]" : "[]") << ")\n";
  }
}

const OpDef print_op = make_op("print", print_infer, print_kernel);
TANDEM_REGISTER_OP(print_op)
TANDEM_NOT_DIFFERENTIABLE(print_op)
TANDEM_STATEFUL(print_op)

}  // namespace

void set_print_hook(PrintHook h) {
  std::lock_guard<std::mutex> lock(hook_mutex());
  hook() = std::move(h);
}

void print_values(const std::vector<Tensor>& values, int64_t format) {
  dispatch(print_op, values, {{"format", format}});
}

}  // namespace tandem
