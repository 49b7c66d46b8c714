// The elementwise driver. An op supplies one array function per compute dtype that works
// on dense arrays (so it vectorizes); the driver handles broadcasting, strides, dtype
// conversion, 16-bit floats (computed as float32), tiling and threads.
#pragma once
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

constexpr int kMaxEwInputs = 4;
constexpr int kMaxEwOutputs = 4;

// out[i] = f(in0[i], in1[i], ...) over n dense elements; params carries scalar attributes.
// A function with several outputs gets `out` as a `void* const*` array of them.
using ArrayFn = void (*)(int64_t n, void* out, const void* const* in, const double* params);

struct EwCall {
  ArrayFn fn = nullptr;
  const double* params = nullptr;
  DType out_dtype = DType::Float32;    // what fn writes (every output)
  DType in_dtypes[kMaxEwInputs] = {};  // what fn reads, per input
  int num_outputs = 1;
};

// Runs call.fn over out's shape; inputs broadcast to it. out may be any view of any dtype.
void run_elementwise(const EwCall& call, const Tensor& out, const std::vector<Tensor>& inputs);
// The same with the n operands passed by pointer (eager calls, which build no vector).
void run_elementwise(const EwCall& call, const Tensor& out, const Tensor* const* inputs, int n);
// The same for a function with several outputs, all of one shape.
void run_elementwise(const EwCall& call, const std::vector<Tensor>& outs,
                     const std::vector<Tensor>& inputs);
// dst[...] = src[...] with broadcasting and dtype conversion.
void copy_into(const Tensor& dst, const Tensor& src);
// n elements from a strided source of dtype sdt into a strided destination of dtype ddt
// (strides in bytes).
void convert_strided(const char* src, int64_t src_stride, DType sdt, char* dst, int64_t dst_stride,
                     DType ddt, int64_t n);

// Elements per thread below which kernels stay single-threaded.
constexpr int64_t kParallelGrain = 32768;
// Number of threads to use for n elements of work.
int parallel_threads(int64_t n, int64_t grain = kParallelGrain);

}  // namespace tandem
