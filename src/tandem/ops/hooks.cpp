#include "tandem/ops/hooks.h"

#include "tandem/autograd/autograd.h"
#include "tandem/core/error.h"

namespace tandem {
namespace {
thread_local TraceRecorder* current_recorder = nullptr;
const AutogradHooks* installed = nullptr;
}  // namespace

TraceRecorder* active_trace_recorder() {
  return current_recorder;
}
void set_active_trace_recorder(TraceRecorder* recorder) {
  current_recorder = recorder;
}

const AutogradHooks* autograd_hooks() {
  return installed;
}
void install_autograd_hooks(const AutogradHooks* hooks) {
  installed = hooks;
}

// Backward rules (part of each OpDef, so compiled into the runtime) call this; only the
// engine runs backward rules, so the hooks are installed whenever it is reached.
std::vector<Tensor> vjp_via_composite(
    const VjpCtx& c, const std::vector<Tensor>& grads,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& composite) {
  TANDEM_CHECK(installed, Error, "internal: ", c.op.name,
               "'s backward rule ran without autograd (libtandem) loaded");
  return installed->vjp_via_composite(c, grads, composite);
}

}  // namespace tandem
