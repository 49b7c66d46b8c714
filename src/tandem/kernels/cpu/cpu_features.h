// Which instruction sets the kernels may use on this CPU, decided once at first use.
//
// The library is compiled for a baseline (the portable build: x86-64-v3, i.e. AVX2 + FMA +
// F16C); kernels that gain from AVX-512 carry a second form, compiled for it function by
// function or generated at run time (graph/fused_jit.cpp, oneDNN), and take it only where
// cpuid reports the instructions. TANDEM_ISA=avx2 caps the choice below what the CPU
// offers, so the baseline forms can be tested on an AVX-512 machine; it also caps oneDNN's
// own dispatch. (A -march=native build has AVX-512 compiled in everywhere; there the cap
// reaches only these run-time choices.)
#pragma once

namespace tandem {

// AVX-512 F/BW/DQ/VL are present and TANDEM_ISA does not rule them out.
bool cpu_use_avx512();

// torch.backends.cpu.get_cpu_capability()'s names for what the kernels run: "AVX512" or
// "AVX2".
const char* cpu_capability();

// The instruction set the library itself was compiled for: "x86-64-v3" or "native".
const char* build_isa();

}  // namespace tandem
