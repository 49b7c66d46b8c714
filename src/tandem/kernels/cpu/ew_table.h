// What an elementwise op's kernels are, independent of the instruction set they were
// compiled for: the per-dtype array functions of ew_loops.h and the float32 vector form the
// fused-kernel compiler calls. ew_loops.h builds tables; op definitions and graph/fused.h
// only hold them, so they include this header, not the SIMD code.
#pragma once
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {

// An op's scalar attributes as the functors read them (alpha, min/max, ...).
struct EwP {
  double a = 0, b = 0, c = 0;
};

// One 16-lane float32 vector through a functor's SIMD form, in memory: io[0..15] is the
// first operand and receives the result, io[16..31] the second. Generated fused kernels
// (AVX-512 code, emitted where the CPU has it) call it for ops they have no inline code
// for: same lanes, same math as the loops, in as many vector steps as the form's width takes.
using VecFn32 = void (*)(float* io, const double* params);

// Per-compute-dtype tables of ArrayFns (index: DType). Null = dtype not supported.
struct EwFnTable {
  ArrayFn fn[kNumDTypes] = {};
  VecFn32 vec32 = nullptr;  // the float32 SIMD form, when the functor has one
};

}  // namespace tandem
