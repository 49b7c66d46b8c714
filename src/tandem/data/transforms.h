// Per-sample transforms that run inside the loader's C++ worker threads. Each maps one
// sample tensor to another with tandem ops; random ones draw from the Rng they are given,
// which the loader seeds per sample so results don't depend on the worker count.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem::data {

// A small counter-based generator (Philox) owned by one sample's transform chain.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream) : seed_(seed), counter_(stream << 20) {}
  double uniform();                         // [0, 1)
  int64_t randint(int64_t lo, int64_t hi);  // [lo, hi)
 private:
  uint64_t seed_, counter_;
};

class Transform {
 public:
  virtual ~Transform() = default;
  virtual Tensor apply(const Tensor& x, Rng& rng) const = 0;
  virtual std::string name() const = 0;
};
using TransformPtr = std::shared_ptr<const Transform>;

// Geometric transforms take an HW image, or a CHW one (torchvision) or, with hwc, an HWC one
// (MindSpore); the result keeps the layout and dtype.

// uint8 (H, W) or (H, W, C) image -> float32 (C, H, W) in [0, 1] (torchvision's ToTensor).
TransformPtr to_tensor();
// Bilinear resize (align_corners=False, no antialias) to (h, w); w <= 0 resizes the shorter
// edge to h keeping the aspect ratio (the int `size` of torchvision / MindSpore Resize).
// uint8 stays uint8 (rounded and clamped).
TransformPtr resize(int64_t h, int64_t w, bool hwc = false);
// x * scale + shift (MindSpore's Rescale), as float32.
TransformPtr rescale(double scale, double shift);
// (x - mean[c]) / std[c] over the channel dim (dim 0 of CHW, or the last dim when hwc; an
// HW image has one channel), as float32 unless x is already floating.
TransformPtr normalize(std::vector<double> mean, std::vector<double> std, bool hwc = false);
// (H, W, C) -> (C, H, W); an (H, W) image is returned unchanged.
TransformPtr hwc2chw();
TransformPtr type_cast(DType dtype);
// Crops (h, w) at the centre, zero-padding first where the image is smaller. The offsets
// follow torchvision (round-half-even of (H - h) / 2, extra padding at the bottom/right) or,
// with mindspore_style, MindSpore (floor, extra padding at the top/left).
TransformPtr center_crop(int64_t h, int64_t w, bool hwc = false, bool mindspore_style = false);
// Zero-pads by padding = {left, top, right, bottom}, then crops (h, w) at a random position.
TransformPtr random_crop(int64_t h, int64_t w, std::vector<int64_t> padding = {0, 0, 0, 0},
                         bool hwc = false);
// Flips the width dim with probability p.
TransformPtr random_horizontal_flip(double p = 0.5, bool hwc = false);

}  // namespace tandem::data
