// 2-D convolution kernels on dense NCHW / OIHW buffers: float32 and bfloat16 through oneDNN
// (blocked layouts chosen by oneDNN, with reorders and primitives cached per shape), float64
// through an im2col + GEMM reference path.
#pragma once
#include <cstdint>
#include <string>

#include "tandem/core/dtype.h"

namespace tandem {

struct ConvParams {
  int64_t N, C, H, W;      // input
  int64_t O, KH, KW;       // weight (O, C / groups, KH, KW)
  int64_t OH, OW;          // output
  int64_t sh, sw;          // stride
  int64_t pt, pl, pb, pr;  // padding top / left / bottom / right
  int64_t dh, dw;          // dilation (1 = dense)
  int64_t groups;
  // An activation applied to the output inside the oneDNN call (a post-op; float32 only).
  enum class Act { None, Relu, Sigmoid, Tanh } act = Act::None;
  // Activations (input, output and their gradients) are channel-blocked, oneDNN's nChw16c
  // (ops/layout.h), instead of NCHW: no reorder around the oneDNN call. Weights stay OIHW.
  bool blocked = false;
  // With blocked: the input side (x and its gradient) stays NCHW. A first layer's few input
  // channels (1-4) would be padded to a whole block; its output is blocked all the same.
  // Only oneDNN's kernels take this mix.
  bool plain_input = false;
  // Nonzero when the weights are a constant that never changes (an exported model's, as the
  // runtime's lowering marks them): the storage serial and byte offset identify it, and its
  // copy in oneDNN's layout is made once and cached instead of reordered on every call.
  uint64_t weight_serial = 0;
  int64_t weight_offset = 0;
  std::string key() const;
};

enum class ConvPass { Forward, BackwardData, BackwardWeights };

// Whether `pass` of this convolution runs natively in bfloat16 (bf16 tensors, float32
// accumulation on the CPU's dot-product instructions). Where not, callers compute in float32:
// oneDNN's emulated or reference bf16 kernels are slower than its float32 ones.
bool conv2d_native_bf16(const ConvParams& p, ConvPass pass);

// dt is Float32, Float64, or BFloat16 where conv2d_native_bf16 says so; every buffer has it.
void conv2d_forward(const ConvParams& p, DType dt, const void* x, const void* w, const void* b,
                    void* y);
// gx = d(loss)/dx from gy = d(loss)/dy.
void conv2d_backward_data(const ConvParams& p, DType dt, const void* gy, const void* w, void* gx);
// gw (and gb when not null) from x and gy.
void conv2d_backward_weights(const ConvParams& p, DType dt, const void* x, const void* gy, void* gw,
                             void* gb);

// The bfloat16 weight gradient as one GEMM over the batch (conv_bf16_gemm.cpp), for the
// shapes where that beats oneDNN's direct kernel (conv2d_bwd_weights_prefers_gemm); false
// where oneDNN has no native bf16 matmul (nothing is written then).
bool conv2d_bwd_weights_prefers_gemm(const ConvParams& p);
bool conv2d_backward_weights_bf16_gemm(const ConvParams& p, const void* x, const void* gy, void* gw,
                                       void* gb);

// The float32 or bfloat16 weight gradient as one GEMM per kernel tap over the positions where
// the tap meets the image (conv_wgrad_taps.cpp), for small output maps
// (conv2d_bwd_weights_prefers_taps); false for other dtypes, or where oneDNN has no native
// bf16 matmul (nothing is written then).
bool conv2d_bwd_weights_prefers_taps(const ConvParams& p);
bool conv2d_backward_weights_taps(const ConvParams& p, DType dt, const void* x, const void* gy,
                                  void* gw, void* gb);

// Float32 3x3 stride-1 convolutions with padding 1 on 3x3, 6x6 and 9x9 maps by Winograd
// F(3x3, 3x3) (conv_winograd3.cpp), for the shapes and passes conv2d_prefers_winograd3 accepts.
bool conv2d_prefers_winograd3(const ConvParams& p, ConvPass pass);
void conv2d_forward_winograd3(const ConvParams& p, const float* x, const float* w, const float* b,
                              float* y);
void conv2d_backward_data_winograd3(const ConvParams& p, const float* gy, const float* w,
                                    float* gx);
void conv2d_backward_weights_winograd3(const ConvParams& p, const float* x, const float* gy,
                                       float* gw, float* gb);

// The output indices [lo, hi) of one spatial axis whose input index
// o * stride - pad + k * dilation falls inside [0, size): where kernel tap k meets the image.
inline void conv_valid_range(int64_t out, int64_t size, int64_t stride, int64_t pad, int64_t k,
                             int64_t dilation, int64_t& lo, int64_t& hi) {
  const int64_t off = k * dilation - pad;  // in = o * stride + off
  lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
  hi = size - off <= 0 ? 0 : (size - off + stride - 1) / stride;
  lo = lo < out ? lo : out;
  hi = hi < out ? hi : out;
  if (hi < lo) hi = lo;
}

// im2col of one image's Cg channels into cols (Cg * KH * KW, OH * OW), and its adjoint
// (col2im accumulates into x). Instantiated for float and double.
namespace conv_ref {
template <typename T>
void im2col(const ConvParams& p, const T* x, int64_t Cg, T* cols);
template <typename T>
void col2im(const ConvParams& p, const T* cols, int64_t Cg, T* x);
}  // namespace conv_ref

}  // namespace tandem
