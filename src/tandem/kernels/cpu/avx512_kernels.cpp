// The AVX-512 forms behind avx512_kernels.h. The file is compiled with the library's
// baseline flags; only the kernel templates, included below under #pragma GCC target, are
// compiled for AVX-512, into the inline namespace simd.h names `avx512`, so none of their
// symbols is shared with (or can replace) a baseline function. Everything those templates
// need from the rest of the library is included first, for the baseline.
#include "tandem/kernels/cpu/avx512_kernels.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tandem/core/dtype.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/kernels/cpu/ew_table.h"

// GCC only: clang (the fuzz harness's compiler) has no #pragma GCC target; its builds keep
// the baseline forms.
#if defined(__x86_64__) && !defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#define TANDEM_AVX512_FORMS 1
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
#define TANDEM_SIMD_FORCE_AVX512 1
#include "tandem/kernels/cpu/binary_functors.h"
#include "tandem/kernels/cpu/rnn_rows.h"
#include "tandem/kernels/cpu/softmax_rows.h"
#include "tandem/kernels/cpu/unary_functors.h"
#if !TANDEM_SIMD_AVX512
#error "avx512_kernels.cpp: simd.h did not take its AVX-512 forms"
#endif

namespace tandem {
namespace {

struct Entry {
  const char* name;
  EwFnTable table;
};

template <typename F>
EwFnTable unary() {
  return make_table<UnaryLoop, F, void, TANDEM_FLOAT_TYPES>();
}
template <typename F>
EwFnTable binary() {
  return make_table<BinaryLoop, F, void, TANDEM_FLOAT_TYPES>();
}

// Every elementwise op whose functor has a SIMD form (tests/cpp/test_cpu_dispatch.cpp
// fails when one is missing here or a name matches no op). Built on first use, which
// happens only on a CPU with AVX-512.
const Entry* entries(int* n) {
  static const Entry e[] = {
      {"round", unary<fn::Round>()},
      {"clamp", unary<fn::Clamp>()},
      {"clamp_min", unary<fn::ClampMin>()},
      {"clamp_max", unary<fn::ClampMax>()},
      {"sqrt", unary<fn::Sqrt>()},
      {"rsqrt", unary<fn::Rsqrt>()},
      {"reciprocal", unary<fn::Reciprocal>()},
      {"exp", unary<fn::Exp>()},
      {"exp2", unary<fn::Exp2>()},
      {"expm1", unary<fn::Expm1>()},
      {"log", unary<fn::Log>()},
      {"log2", unary<fn::Log2>()},
      {"log10", unary<fn::Log10>()},
      {"log1p", unary<fn::Log1p>()},
      {"sin", unary<fn::Sin>()},
      {"cos", unary<fn::Cos>()},
      {"tan", unary<fn::Tan>()},
      {"asin", unary<fn::Asin>()},
      {"acos", unary<fn::Acos>()},
      {"atan", unary<fn::Atan>()},
      {"sinh", unary<fn::Sinh>()},
      {"cosh", unary<fn::Cosh>()},
      {"tanh", unary<fn::Tanh>()},
      {"asinh", unary<fn::Asinh>()},
      {"acosh", unary<fn::Acosh>()},
      {"atanh", unary<fn::Atanh>()},
      {"erf", unary<fn::Erf>()},
      {"erfc", unary<fn::Erfc>()},
      {"sigmoid", unary<fn::Sigmoid>()},
      {"logsigmoid", unary<fn::LogSigmoid>()},
      {"silu", unary<fn::Silu>()},
      {"mish", unary<fn::Mish>()},
      {"gelu", unary<fn::GeluErf>()},
      {"gelu_tanh", unary<fn::GeluTanh>()},
      {"softplus", unary<fn::Softplus>()},
      {"elu", unary<fn::Elu>()},
      {"leaky_relu", unary<fn::LeakyRelu>()},
      {"hardsigmoid", unary<fn::Hardsigmoid>()},
      {"hardswish", unary<fn::Hardswish>()},
      {"div", binary<fn::Div>()},
      {"pow", binary<fn::Pow>()},
      {"atan2", binary<fn::Atan2>()},
      {"logaddexp", binary<fn::Logaddexp>()},
  };
  *n = int(sizeof(e) / sizeof(e[0]));
  return e;
}

const SoftmaxRowKernels* softmax_rows() {
  static const SoftmaxRowKernels k{
      &softmax_cpu::softmax_row<float>, &softmax_cpu::softmax_row<double>,
      &softmax_cpu::softmax_backward_row<float>, &softmax_cpu::softmax_backward_row<double>};
  return &k;
}

template <typename T>
const RnnRowKernels<T>* rnn_rows() {
  static const RnnRowKernels<T> k = rnn_cpu::row_kernels<T, RnnRowKernels<T>>();
  return &k;
}

}  // namespace
}  // namespace tandem
#pragma GCC pop_options
#endif

namespace tandem {

#if TANDEM_AVX512_FORMS
const EwFnTable* avx512_ew_table(const char* name) {
  if (!cpu_use_avx512()) return nullptr;
  int n = 0;
  const auto* e = entries(&n);
  for (int i = 0; i < n; ++i)
    if (!std::strcmp(e[i].name, name)) return &e[i].table;
  return nullptr;
}

int avx512_ew_table_count() {
  if (!cpu_use_avx512()) return 0;
  int n = 0;
  entries(&n);
  return n;
}

const char* avx512_ew_table_name(int i) {
  if (!cpu_use_avx512()) return nullptr;  // entries() itself runs AVX-512 code
  int n = 0;
  const auto* e = entries(&n);
  return i >= 0 && i < n ? e[i].name : nullptr;
}

const SoftmaxRowKernels* avx512_softmax_rows() {
  static const SoftmaxRowKernels* k = cpu_use_avx512() ? softmax_rows() : nullptr;
  return k;
}

const RnnRowKernels<float>* avx512_rnn_rows_f32() {
  static const RnnRowKernels<float>* k = cpu_use_avx512() ? rnn_rows<float>() : nullptr;
  return k;
}

const RnnRowKernels<double>* avx512_rnn_rows_f64() {
  static const RnnRowKernels<double>* k = cpu_use_avx512() ? rnn_rows<double>() : nullptr;
  return k;
}
#else
const EwFnTable* avx512_ew_table(const char*) {
  return nullptr;
}
int avx512_ew_table_count() {
  return 0;
}
const char* avx512_ew_table_name(int) {
  return nullptr;
}
const SoftmaxRowKernels* avx512_softmax_rows() {
  return nullptr;
}
const RnnRowKernels<float>* avx512_rnn_rows_f32() {
  return nullptr;
}
const RnnRowKernels<double>* avx512_rnn_rows_f64() {
  return nullptr;
}
#endif

}  // namespace tandem
