// Native code for fused elementwise programs: a float32 program becomes one AVX-512 loop
// (generated in process with xbyak, no compiler) that keeps every intermediate in vector
// registers, loads each input and stores each output once per 16 elements. The
// interpreter in fused.cpp runs whatever this does not cover.
#pragma once
#include "tandem/graph/fused.h"

namespace tandem::graph {

// The program as a driver ArrayFn, or null: float64 programs, ops without a generator
// here, programs needing more than 32 vector registers, builds or CPUs without AVX-512.
// Results equal the interpreter's (and eager mode's) bit for bit.
ArrayFn compile_fused(const FusedProgram& p);

// Whether fused kernels use the generated code (default: yes, unless TANDEM_JIT_DISABLE
// names "codegen"); switching it off makes them interpret, for comparisons.
bool fused_codegen_enabled();
void set_fused_codegen(bool on);

}  // namespace tandem::graph
