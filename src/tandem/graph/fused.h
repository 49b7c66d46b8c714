// Fused elementwise kernels: a small program of elementwise instructions run tile by tile
// by the elementwise driver, so intermediates stay in L1-sized scratch buffers and each
// input is read once and the output written once. Instructions reuse the eager ops' array
// functions (their EwInfo tables), so fused and eager results agree.
#pragma once
#include <string>
#include <vector>

#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/op_def.h"

namespace tandem::graph {

struct FusedInstr {
  const OpDef* op;  // for printing
  ArrayFn fn;
  double params[3] = {0, 0, 0};
  int out_reg = 0;
  std::vector<int> in_regs;
};

// Registers 0..num_inputs-1 are the fused node's inputs, then come constants (Python numbers
// of the traced code, in the program's dtype, as eager mode converts them), then one new
// register per instruction; the last instruction's register is the output.
struct FusedProgram {
  DType dtype = DType::Float32;
  int num_inputs = 0;
  int num_regs = 0;
  std::vector<std::pair<int, double>> consts;  // register, value
  std::vector<FusedInstr> instrs;
  std::string str() const;
};

// Stores a program and returns the id a fused_elementwise node carries in its attrs.
int64_t register_program(FusedProgram p);
// The OpDef of fused nodes (attrs: program id, and the program text for printing).
const OpDef& fused_elementwise_op();
// A fused program summed over all its elements, times attr "scale" (1, or 1/N for a mean):
// the elementwise result is never stored. 0-d output in the program's dtype; partial sums
// are kept in float64.
const OpDef& fused_sum_op();

}  // namespace tandem::graph
