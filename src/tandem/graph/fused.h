// Fused elementwise kernels: a small program of elementwise instructions run tile by tile
// by the elementwise driver, so intermediates stay in L1-sized scratch buffers and each
// input is read once and the output written once. Instructions reuse the eager ops' array
// functions (their EwInfo tables), so fused and eager results agree.
#pragma once
#include <string>
#include <vector>

#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/ew_table.h"
#include "tandem/ops/op_def.h"

namespace tandem::graph {

struct FusedInstr {
  const OpDef* op;  // for printing
  ArrayFn fn;
  double params[3] = {0, 0, 0};
  int out_reg = 0;
  std::vector<int> in_regs;
  int out_slot = -1;      // which output of the node this register is, else -1 (scratch)
  VecFn32 vec = nullptr;  // float32 SIMD form (ew_loops.h), for generated code to call
};

// Registers 0..num_inputs-1 are the fused node's inputs, then come constants (Python numbers
// of the traced code, in the program's dtype, as eager mode converts them), then one new
// register per instruction. out_regs are the node's outputs, in order (empty: the last
// instruction's register); an output register is written straight into the output, so an
// intermediate that is also read outside the group costs one store, not a second kernel.
struct FusedProgram {
  DType dtype = DType::Float32;  // what every register holds (the compute dtype)
  // The storage dtype of each output (empty: dtype): float16 / bfloat16 outputs of a float32
  // program are converted by the driver as they are stored, inputs as they are loaded.
  std::vector<DType> out_dtypes;
  int num_inputs = 0;
  int num_regs = 0;
  std::vector<std::pair<int, double>> consts;  // register, value
  std::vector<FusedInstr> instrs;
  std::vector<int> out_regs;
  ArrayFn native = nullptr;  // generated code (graph/fused_jit.h), when it covers the program
  std::string str() const;
};

// The instruction a cast between float16, bfloat16 and float32 is in a float32 program:
// register out = register in rounded to `to` (kept in float32), or copied for float32.
FusedInstr cast_instr(DType to, int in_reg, int out_reg);

// Stores a program (filling in out_regs and the instructions' out_slot) and returns the id
// a fused_elementwise node carries in its attrs.
int64_t register_program(FusedProgram p);
// The program of a fused_elementwise or fused_sum node, from its attrs.
const FusedProgram& fused_program(const Attrs& a);
// The OpDef of fused nodes (attrs: program id, and the program text for printing).
const OpDef& fused_elementwise_op();
// A fused program summed over all its elements, times attr "scale" (1, or 1/N for a mean):
// the elementwise result is never stored. 0-d output in the program's dtype; partial sums
// are kept in float64.
const OpDef& fused_sum_op();

}  // namespace tandem::graph
