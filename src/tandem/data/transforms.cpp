#include "tandem/data/transforms.h"

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/image_kernels.h"
#include "tandem/kernels/cpu/philox.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::data {

double Rng::uniform() {
  auto r = philox4x32(counter_++, seed_, 0x7a11);
  return to_unit_double(r[0], r[1]);
}
int64_t Rng::randint(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + int64_t(uniform() * double(hi - lo));
}

namespace {

Tensor num(double v) {
  return scalar_tensor(Scalar(v));
}

// Runs f on x viewed as CHW (an HW image gets a channel dim, an HWC one is permuted) and
// returns its result in x's layout, contiguous. f may return a view.
template <typename F>
Tensor on_chw(const Tensor& x, bool hwc, const char* op, F&& f) {
  TANDEM_CHECK(x.dim() == 2 || x.dim() == 3, ValueError, op,
               ": expected an image of shape (H, W) or ", hwc ? "(H, W, C)" : "(C, H, W)", ", got ",
               shape_str(x.shape()));
  if (x.dim() == 2) return squeeze(f(unsqueeze(x, 0)), std::vector<int64_t>{0}).contiguous();
  if (hwc) return permute(f(permute(x, {2, 0, 1})), {1, 2, 0}).contiguous();
  return f(x).contiguous();
}

// Zero-pads the last two dims of a CHW image.
Tensor pad_chw(const Tensor& chw, int64_t left, int64_t top, int64_t right, int64_t bottom) {
  if (left == 0 && top == 0 && right == 0 && bottom == 0) return chw;
  return pad(chw, {left, right, top, bottom}, "constant", 0.0);
}

// image_resize_bilinear: (C, H, W) uint8 / float32 / float64 -> (C, size[0], size[1]) of the
// same dtype. A data-pipeline op (no backward): uint8 stays uint8 without a float round trip.
std::vector<TensorMeta> image_resize_infer(const OpDef& op, const std::vector<Tensor>& in,
                                           const Attrs& at) {
  const Tensor& x = in[0];
  TANDEM_CHECK(x.dim() == 3, ValueError, op.name, ": expected a (C, H, W) image, got ",
               shape_str(x.shape()));
  DType dt = x.dtype();
  TANDEM_CHECK(dt == DType::UInt8 || dt == DType::Float32 || dt == DType::Float64, TypeError,
               op.name, ": expected uint8, float32 or float64, got ", dtype_name(dt));
  const auto& s = at.get_ints("size");
  TANDEM_CHECK(s.size() == 2 && s[0] > 0 && s[1] > 0, ValueError, op.name,
               ": size must be two positive ints, got ", shape_str(s));
  TANDEM_CHECK(x.shape()[1] > 0 && x.shape()[2] > 0, ValueError, op.name,
               ": cannot resize an empty image ", shape_str(x.shape()));
  return {{{x.shape()[0], s[0], s[1]}, dt}};
}
void image_resize_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                         const Attrs&) {
  Tensor x = in[0].contiguous();
  const Shape &xs = x.shape(), &ys = out[0].shape();
  if (out[0].numel())
    resize_bilinear_image(x.dtype(), x.data_ptr(), out[0].data_ptr(), xs[0], xs[1], xs[2], ys[1],
                          ys[2]);
}
const OpDef image_resize_op{"image_resize_bilinear", image_resize_infer, image_resize_kernel};
TANDEM_REGISTER_OP(image_resize_op)
TANDEM_NOT_DIFFERENTIABLE(image_resize_op)

struct ToTensor : Transform {
  Tensor apply(const Tensor& x, Rng&) const override {
    TANDEM_CHECK(x.dim() == 2 || x.dim() == 3, ValueError,
                 "ToTensor: expected an image of shape (H, W) or (H, W, C), got ",
                 shape_str(x.shape()));
    Tensor chw = x.dim() == 2 ? unsqueeze(x, 0) : permute(x, {2, 0, 1});
    Tensor f = to_dtype(chw, DType::Float32);
    return x.dtype() == DType::UInt8 ? mul(f, num(1.0 / 255.0)) : f.contiguous();
  }
  std::string name() const override { return "ToTensor"; }
};

struct Resize : Transform {
  int64_t h, w;
  bool hwc;
  Resize(int64_t h_, int64_t w_, bool hwc_) : h(h_), w(w_), hwc(hwc_) {}
  Tensor apply(const Tensor& x, Rng&) const override {
    return on_chw(x, hwc, "Resize", [&](const Tensor& chw) {
      int64_t H = chw.shape()[1], W = chw.shape()[2], oh = h, ow = w;
      if (w <= 0) {  // shorter edge to h; the longer one truncated like torchvision's int()
        TANDEM_CHECK(H > 0 && W > 0, ValueError, "Resize: cannot resize an empty image ",
                     shape_str(x.shape()));
        if (W <= H)
          ow = h, oh = h * H / W;
        else
          oh = h, ow = h * W / H;
      }
      DType dt = chw.dtype();
      Attrs at{{"size", std::vector<int64_t>{oh, ow}}};
      if (dt == DType::UInt8 || dt == DType::Float32 || dt == DType::Float64)
        return dispatch1(image_resize_op, {chw}, at);
      // Other dtypes: through float32 (rounded and clamped back for integers).
      Tensor y = dispatch1(image_resize_op, {to_dtype(chw, DType::Float32)}, at);
      if (!is_floating(dt)) y = round(y);
      return to_dtype(y, dt);
    });
  }
  std::string name() const override { return "Resize"; }
};

struct Rescale : Transform {
  double scale, shift;
  Rescale(double s, double t) : scale(s), shift(t) {}
  Tensor apply(const Tensor& x, Rng&) const override {
    return add(mul(to_dtype(x, DType::Float32), num(scale)), num(shift));
  }
  std::string name() const override { return "Rescale"; }
};

struct Normalize : Transform {
  size_t n;
  bool hwc;
  Tensor mean32, std32, mean64, std64;  // built once, read concurrently by the workers
  Normalize(const std::vector<double>& m, const std::vector<double>& s, bool h)
      : n(m.size()), hwc(h) {
    mean64 = Tensor::empty({int64_t(n)}, DType::Float64);
    std64 = Tensor::empty({int64_t(n)}, DType::Float64);
    std::copy(m.begin(), m.end(), mean64.data<double>());
    std::copy(s.begin(), s.end(), std64.data<double>());
    mean32 = to_dtype(mean64, DType::Float32);
    std32 = to_dtype(std64, DType::Float32);
  }
  Tensor apply(const Tensor& x, Rng&) const override {
    // An HW image has no channel dim: one mean/std applies to every pixel.
    int64_t cdim = x.dim() < 3 ? -1 : (hwc ? x.dim() - 1 : x.dim() - 3);
    int64_t C = cdim < 0 ? 1 : x.shape()[size_t(cdim)];
    TANDEM_CHECK(int64_t(n) == C || n == 1, ValueError, "Normalize: got ", n,
                 " means/stds for an image of shape ", shape_str(x.shape()), " with ", C,
                 " channels", hwc ? " (HWC)" : " (CHW)");
    Shape bs(size_t(x.dim()), 1);
    if (cdim >= 0) bs[size_t(cdim)] = int64_t(n);
    bool f64 = x.dtype() == DType::Float64;
    Tensor xf = is_floating(x.dtype()) ? x : to_dtype(x, DType::Float32);
    return div(sub(xf, reshape(f64 ? mean64 : mean32, bs)), reshape(f64 ? std64 : std32, bs));
  }
  std::string name() const override { return "Normalize"; }
};

struct Hwc2Chw : Transform {
  Tensor apply(const Tensor& x, Rng&) const override {
    TANDEM_CHECK(x.dim() == 2 || x.dim() == 3, ValueError,
                 "HWC2CHW: expected an (H, W, C) or (H, W) image, got ", shape_str(x.shape()));
    if (x.dim() == 2) return x;
    return permute(x, {2, 0, 1}).contiguous();
  }
  std::string name() const override { return "HWC2CHW"; }
};

struct TypeCast : Transform {
  DType dt;
  explicit TypeCast(DType d) : dt(d) {}
  Tensor apply(const Tensor& x, Rng&) const override { return to_dtype(x, dt); }
  std::string name() const override { return "TypeCast"; }
};

Tensor crop(const Tensor& chw, int64_t top, int64_t left, int64_t h, int64_t w) {
  return narrow(narrow(chw, -2, top, h), -1, left, w);
}

// Python's round() of k / 2 (half to even), which torchvision uses for the crop offset.
int64_t half_round_even(int64_t k) {
  int64_t q = k / 2;
  return (k % 2 != 0 && q % 2 != 0) ? q + 1 : q;
}

struct CenterCrop : Transform {
  int64_t h, w;
  bool hwc, ms;
  CenterCrop(int64_t h_, int64_t w_, bool hwc_, bool ms_) : h(h_), w(w_), hwc(hwc_), ms(ms_) {}
  Tensor apply(const Tensor& x, Rng&) const override {
    return on_chw(x, hwc, "CenterCrop", [&](const Tensor& chw) {
      int64_t H = chw.shape()[1], W = chw.shape()[2];
      int64_t ph = std::max<int64_t>(h - H, 0), pw = std::max<int64_t>(w - W, 0);
      // The odd pixel of padding goes top/left in MindSpore, bottom/right in torchvision.
      int64_t top = ms ? ph - ph / 2 : ph / 2, left = ms ? pw - pw / 2 : pw / 2;
      Tensor img = pad_chw(chw, left, top, pw - left, ph - top);
      H += ph, W += pw;
      int64_t dy = ms ? (H - h) / 2 : half_round_even(H - h);
      int64_t dx = ms ? (W - w) / 2 : half_round_even(W - w);
      return crop(img, dy, dx, h, w);
    });
  }
  std::string name() const override { return "CenterCrop"; }
};

struct RandomCrop : Transform {
  int64_t h, w;
  std::vector<int64_t> padding;  // left, top, right, bottom
  bool hwc;
  RandomCrop(int64_t h_, int64_t w_, std::vector<int64_t> p, bool hwc_)
      : h(h_), w(w_), padding(std::move(p)), hwc(hwc_) {}
  Tensor apply(const Tensor& x, Rng& rng) const override {
    return on_chw(x, hwc, "RandomCrop", [&](const Tensor& chw) {
      Tensor img = pad_chw(chw, padding[0], padding[1], padding[2], padding[3]);
      int64_t H = img.shape()[1], W = img.shape()[2];
      TANDEM_CHECK(h <= H && w <= W, ValueError, "RandomCrop: crop size (", h, ", ", w,
                   ") is larger than the padded image (", H, ", ", W,
                   "); pass a larger padding or a smaller size");
      int64_t top = rng.randint(0, H - h + 1), left = rng.randint(0, W - w + 1);
      return crop(img, top, left, h, w);
    });
  }
  std::string name() const override { return "RandomCrop"; }
};

struct RandomHorizontalFlip : Transform {
  double p;
  bool hwc;
  RandomHorizontalFlip(double p_, bool hwc_) : p(p_), hwc(hwc_) {}
  Tensor apply(const Tensor& x, Rng& rng) const override {
    bool flip = rng.uniform() < p;
    return on_chw(x, hwc, "RandomHorizontalFlip", [&](const Tensor& chw) {
      return flip ? slice(chw, -1, std::nullopt, std::nullopt, -1) : chw;
    });
  }
  std::string name() const override { return "RandomHorizontalFlip"; }
};

void check_size(int64_t h, int64_t w, const char* op) {
  TANDEM_CHECK(h > 0 && w > 0, ValueError, op, ": size must be positive, got (", h, ", ", w, ")");
}

}  // namespace

TransformPtr to_tensor() {
  return std::make_shared<ToTensor>();
}
TransformPtr resize(int64_t h, int64_t w, bool hwc) {
  TANDEM_CHECK(h > 0, ValueError, "Resize: size must be positive, got (", h, ", ", w, ")");
  return std::make_shared<Resize>(h, w, hwc);
}
TransformPtr rescale(double scale, double shift) {
  return std::make_shared<Rescale>(scale, shift);
}
TransformPtr normalize(std::vector<double> mean, std::vector<double> std, bool hwc) {
  TANDEM_CHECK(!mean.empty() && mean.size() == std.size(), ValueError,
               "Normalize: mean and std need the same non-zero length, got ", mean.size(), " and ",
               std.size());
  for (double s : std) TANDEM_CHECK(s != 0, ValueError, "Normalize: std must be non-zero, got ", s);
  return std::make_shared<Normalize>(std::move(mean), std::move(std), hwc);
}
TransformPtr hwc2chw() {
  return std::make_shared<Hwc2Chw>();
}
TransformPtr type_cast(DType dtype) {
  return std::make_shared<TypeCast>(dtype);
}
TransformPtr center_crop(int64_t h, int64_t w, bool hwc, bool mindspore_style) {
  check_size(h, w, "CenterCrop");
  return std::make_shared<CenterCrop>(h, w, hwc, mindspore_style);
}
TransformPtr random_crop(int64_t h, int64_t w, std::vector<int64_t> padding, bool hwc) {
  check_size(h, w, "RandomCrop");
  TANDEM_CHECK(padding.size() == 4, ValueError,
               "RandomCrop: padding must be (left, top, right, bottom), got ", padding.size(),
               " values");
  for (int64_t p : padding)
    TANDEM_CHECK(p >= 0, ValueError, "RandomCrop: padding must be non-negative, got ", p);
  return std::make_shared<RandomCrop>(h, w, std::move(padding), hwc);
}
TransformPtr random_horizontal_flip(double p, bool hwc) {
  TANDEM_CHECK(p >= 0 && p <= 1, ValueError, "RandomHorizontalFlip: p must be in [0, 1], got ", p);
  return std::make_shared<RandomHorizontalFlip>(p, hwc);
}

}  // namespace tandem::data
