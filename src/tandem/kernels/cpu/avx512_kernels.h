// AVX-512 forms of the kernels that gain from it, for a library compiled for the x86-64-v3
// baseline (TANDEM_ARCH=portable). Each accessor returns null where the CPU (or
// TANDEM_ISA=avx2) rules AVX-512 out, and in a -march=native build, whose baseline forms
// already are what the host runs best; callers then keep their own forms.
#pragma once
#include <cstdint>

#include "tandem/kernels/cpu/ew_table.h"

namespace tandem {

// The AVX-512 float32 / float64 kernels of the elementwise op `name` (the ops whose
// functors have a SIMD form: transcendentals, activations, clamps, div, pow, ...) with its
// float32 vector form for the fused-kernel compiler; null for the other ops. Entries for
// other dtypes are null: those keep the baseline table's kernels.
const EwFnTable* avx512_ew_table(const char* name);
// Every op name that has such a table (for the tests that hold the list complete).
int avx512_ew_table_count();
const char* avx512_ew_table_name(int i);

struct SoftmaxRowKernels {
  void (*forward_f32)(bool log, const float* x, float* y, int64_t n);
  void (*forward_f64)(bool log, const double* x, double* y, int64_t n);
  void (*backward_f32)(bool log, const float* y, const float* gy, float* gx, int64_t n);
  void (*backward_f64)(bool log, const double* y, const double* gy, double* gx, int64_t n);
};
const SoftmaxRowKernels* avx512_softmax_rows();

// The recurrent layer's gate kernels for one row (rnn_rows.h has their contracts).
template <typename T>
struct RnnRowKernels {
  void (*lstm)(int64_t H, T* gh, const T* x, const T* b, const T* cprev, T* c, T* h);
  void (*gru)(int64_t H, const T* gh, const T* x, const T* b, const T* hprev, T* h, T* saved);
  void (*elman)(int64_t H, bool relu, T* h, const T* x, const T* b);
  void (*lstm_bwd)(int64_t H, const T* dh, const T* go, const T* gc, T* dc, const T* act,
                   const T* c, const T* cprev, T* dg);
  void (*gru_bwd)(int64_t H, const T* dh, const T* go, const T* saved, const T* hprev, T* dx,
                  T* dgh, T* dh_direct);
  void (*elman_bwd)(int64_t H, bool relu, const T* dh, const T* go, const T* h, T* dpre);
};
const RnnRowKernels<float>* avx512_rnn_rows_f32();
const RnnRowKernels<double>* avx512_rnn_rows_f64();

}  // namespace tandem
