#pragma once
// Automatic mixed precision (torch.autocast, mindspore.amp): a per-thread state that the op
// functions and dispatch read to cast their floating inputs.
//
// Two modes, one mechanism:
// - Lists (torch.autocast, amp_level O1): the ops of PyTorch's CPU lower-precision list
//   (matmul/linear/conv/...) cast float32 inputs to the low dtype at their entry; the ops of
//   its float32 list (losses, prod, cdist, trace, inverse) cast float16/bfloat16 inputs to
//   float32. Everything else runs in the dtype its inputs have. float64 is never touched.
// - All (Cell.to_float, amp_level O2/O3): dispatch casts every floating input of every op to
//   the cell's dtype, so parameters kept in float32 (the master weights) are cast where used.
// The casts are ordinary `cast` ops: autograd differentiates them (gradients reach float32
// leaves as float32) and tracing records them, so graph mode compiles the same program.
// Backward never autocasts: the engine runs vjps with autocast off, as PyTorch does.
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

struct OpDef;

enum class AutocastMode : uint8_t { Off, Lists, All };

struct AutocastState {
  AutocastMode mode = AutocastMode::Off;
  DType dtype = DType::BFloat16;
};

// This thread's state.
AutocastState autocast_state();
void set_autocast_state(AutocastState s);

// Sets a state for a scope and restores the previous one.
class AutocastGuard {
 public:
  explicit AutocastGuard(AutocastState s) : saved_(autocast_state()) { set_autocast_state(s); }
  ~AutocastGuard() { set_autocast_state(saved_); }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  AutocastState saved_;
};

// Lists mode: a float32 tensor in the low dtype (others unchanged, undefined passes through).
Tensor autocast_lower(const Tensor& t);
// Lists mode: a float16 / bfloat16 tensor in float32.
Tensor autocast_fp32(const Tensor& t);
// All mode (called by dispatch): floating inputs of another dtype cast to the state's dtype;
// returns false (and leaves `out` empty) when nothing needs a cast.
bool autocast_all(const OpDef& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& out);

}  // namespace tandem
