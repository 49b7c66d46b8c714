#include <gtest/gtest.h>

#include "tandem/core/error.h"
#include "tandem/core/tensor.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {
std::vector<double> dvec(std::initializer_list<double> v) {
  return std::vector<double>(v);
}
std::vector<double> arange_d(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double(i);
  return v;
}
}  // namespace

// --- Tensor core -------------------------------------------------------------------------------

TEST(Tensor, Empty) {
  Tensor t = Tensor::empty({2, 3, 4}, DType::Int16);
  EXPECT_EQ(t.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(t.strides(), (Strides{12, 4, 1}));
  EXPECT_EQ(t.dtype(), DType::Int16);
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.itemsize(), 2u);
  EXPECT_EQ(t.offset(), 0);
  EXPECT_GE(t.storage()->nbytes(), 48u);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.size(0), 2);
  EXPECT_THROW(t.size(3), IndexError);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_FALSE(t.is_wrapped_number());

  Tensor s = Tensor::empty({}, DType::Float32);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_TRUE(s.is_contiguous());
  // A 0-d tensor has no dimension to ask about.
  EXPECT_THROW(s.size(0), IndexError);
  EXPECT_THROW(s.size(-1), IndexError);

  Tensor z = Tensor::empty({3, 0}, DType::Float32);
  EXPECT_EQ(z.numel(), 0);
  EXPECT_TRUE(z.is_contiguous());
  EXPECT_THROW(Tensor::empty({2, -1}, DType::Float32), ValueError);
  // Sizes whose byte count overflows int64 are refused instead of wrapping around.
  EXPECT_THROW(Tensor::empty({int64_t(1) << 40, int64_t(1) << 30}, DType::Float32), ValueError);
  EXPECT_THROW(Tensor::empty({int64_t(1) << 61, 8}, DType::Float64), ValueError);
  EXPECT_EQ(Tensor::empty({int64_t(1) << 62, 4, 0}, DType::Float64).numel(), 0);
}

TEST(Tensor, MakeViewSharesStorage) {
  Tensor x = iota<float>({2, 3});
  Tensor v = Tensor::make_view(x, {3}, {2}, 1);  // elements 1, 3, 5
  EXPECT_TRUE(v.shares_storage(x));
  EXPECT_FALSE(v.same(x));
  EXPECT_EQ(v.dtype(), DType::Float32);
  EXPECT_EQ(v.data_ptr(), static_cast<void*>(x.data<float>() + 1));
  EXPECT_EQ(values(v), dvec({1, 3, 5}));
  v.data<float>()[2 * 2] = 50;  // data() is element 0 of the view: storage position 1 + 4
  EXPECT_EQ(values(x), dvec({0, 1, 2, 3, 4, 50}));
}

TEST(Tensor, IsContiguous) {
  Tensor x = iota<float>({3, 4});
  EXPECT_TRUE(x.is_contiguous());
  EXPECT_FALSE(Tensor::make_view(x, {4, 3}, {1, 4}, 0).is_contiguous());
  // Size-1 dims may have any stride.
  EXPECT_TRUE(Tensor::make_view(x, {1, 4}, {99, 1}, 4).is_contiguous());
  EXPECT_TRUE(Tensor::make_view(x, {4, 1}, {1, 7}, 0).is_contiguous());
  EXPECT_FALSE(Tensor::make_view(x, {2, 4}, {8, 1}, 0).is_contiguous());  // rows 0 and 2
  EXPECT_FALSE(Tensor::make_view(x, {4}, {-1}, 3).is_contiguous());
  EXPECT_TRUE(Tensor::make_view(x, {}, {}, 5).is_contiguous());
}

TEST(Tensor, Contiguous) {
  Tensor x = iota<float>({3, 4});
  EXPECT_TRUE(x.contiguous().same(x));  // no copy when already dense
  Tensor tr = Tensor::make_view(x, {4, 3}, {1, 4}, 0);
  Tensor c = tr.contiguous();
  EXPECT_FALSE(c.shares_storage(x));
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.strides(), (Strides{3, 1}));
  EXPECT_EQ(values(c), values(tr));
  EXPECT_EQ(values(c), dvec({0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  // Negative strides and an offset.
  Tensor rev = Tensor::make_view(x, {3, 4}, {-4, -1}, 11);
  EXPECT_EQ(values(rev.contiguous()), dvec({11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  // Float16 keeps its dtype and bits.
  Tensor h = Tensor::empty({2, 2}, DType::Float16);
  for (int i = 0; i < 4; ++i) h.data<Half>()[i] = Half{float_to_half(float(i) + 0.5f)};
  Tensor hc = Tensor::make_view(h, {2, 2}, {1, 2}, 0).contiguous();
  EXPECT_EQ(hc.dtype(), DType::Float16);
  EXPECT_EQ(values(hc), dvec({0.5, 2.5, 1.5, 3.5}));
}

// Elementwise results' layout: the first operand that orders two dims decides; broadcast
// dims, size-1 dims and equal strides defer to the next operand; nothing ordered (or every
// operand contiguous) gives row-major strides.
TEST(Tensor, EmptyFollowingTakesTheOperandsLayout) {
  auto follow = [](const Shape& shape, std::vector<Tensor> ops) {
    std::vector<const Tensor*> p;
    for (auto& t : ops) p.push_back(&t);
    return Tensor::empty_following(shape, DType::Float32, p.data(), int(p.size())).strides();
  };
  Tensor x = iota<float>({3, 4});
  Tensor xt = Tensor::make_view(x, {4, 3}, {1, 4}, 0);  // x.T
  Tensor c = iota<float>({4, 3});
  Tensor row = iota<float>({3});
  EXPECT_EQ(follow({4, 3}, {xt, xt}), (Strides{1, 4}));
  EXPECT_EQ(follow({4, 3}, {xt, c}), (Strides{1, 4}));  // the first operand decides
  EXPECT_EQ(follow({4, 3}, {c, xt}), (Strides{3, 1}));
  EXPECT_EQ(follow({4, 3}, {row, xt}), (Strides{1, 4}));  // a broadcast row cannot
  EXPECT_EQ(follow({4, 3}, {c, c}), (Strides{3, 1}));
  // A column slice (strides 8, 2) is not dense but still row-ordered: row-major result.
  Tensor wide = iota<float>({4, 8});
  Tensor sl = Tensor::make_view(wide, {4, 4}, {8, 2}, 0);
  EXPECT_EQ(follow({4, 4}, {sl}), (Strides{4, 1}));
  // Expanded dims (stride 0) defer to the next operand.
  Tensor ex = Tensor::make_view(row, {4, 3}, {0, 1}, 0);
  EXPECT_EQ(follow({4, 3}, {ex, xt}), (Strides{1, 4}));
  // A channels-last 4-d permute, and a reversed view ordered by its distance.
  Tensor nhwc = iota<float>({2, 3, 4, 5});                                 // N H W C storage
  Tensor nchw = Tensor::make_view(nhwc, {2, 5, 3, 4}, {60, 1, 20, 5}, 0);  // viewed as NCHW
  EXPECT_EQ(follow({2, 5, 3, 4}, {nchw, nchw}), (Strides{60, 1, 20, 5}));
  Tensor rev = Tensor::make_view(x, {4, 3}, {-1, 4}, 3);
  EXPECT_EQ(follow({4, 3}, {rev}), (Strides{1, 4}));
  // Results are fresh, dense and of the right size.
  Tensor t =
      Tensor::empty_following({4, 3}, DType::Float64, std::vector<const Tensor*>{&xt}.data(), 1);
  EXPECT_FALSE(t.shares_storage(x));
  EXPECT_EQ(t.storage()->nbytes(), 12u * 8u);
}

TEST(Tensor, Item) {
  EXPECT_DOUBLE_EQ(from_vec<float>({2.5f}, {}).item().to_double(), 2.5);
  EXPECT_TRUE(from_vec<double>({-1.25}, {1, 1}).item().is_float());
  Scalar si = from_vec<int32_t>({-7}, {1}).item();
  EXPECT_EQ(si.kind(), Scalar::Kind::Int);
  EXPECT_EQ(si.to_int(), -7);
  Scalar sb = from_bools({1}, {}).item();
  EXPECT_EQ(sb.kind(), Scalar::Kind::Bool);
  EXPECT_EQ(sb.to_int(), 1);
  EXPECT_EQ(from_vec<int64_t>({int64_t(1) << 60}, {}).item().to_int(), int64_t(1) << 60);
  EXPECT_EQ(from_vec<uint8_t>({250}, {}).item().to_int(), 250);
  Tensor h = Tensor::empty({}, DType::BFloat16);
  h.data<BFloat16>()[0] = BFloat16{float_to_bf16(3.0f)};
  EXPECT_EQ(h.item_double(), 3.0);
  // item() reads through a view's offset.
  Tensor x = iota<float>({5});
  EXPECT_EQ(Tensor::make_view(x, {}, {}, 3).item_double(), 3.0);
  EXPECT_THROW(x.item(), ValueError);
  EXPECT_THROW(Tensor::empty({0}, DType::Float32).item(), ValueError);
}

TEST(Tensor, WrapScalar) {
  Tensor a = Tensor::wrap_scalar(Scalar(2.5), DType::Float32);
  EXPECT_TRUE(a.is_wrapped_number());
  EXPECT_EQ(a.dim(), 0);
  EXPECT_EQ(a.item_double(), 2.5);
  Tensor b = Tensor::wrap_scalar(Scalar(int64_t(-3)), DType::Int8);
  EXPECT_EQ(b.dtype(), DType::Int8);
  EXPECT_EQ(b.item().to_int(), -3);
  Tensor c = Tensor::wrap_scalar(Scalar(true), DType::Float64);
  EXPECT_EQ(c.item_double(), 1.0);
  Tensor d = Tensor::wrap_scalar(Scalar(1.5), DType::Float16);
  EXPECT_EQ(d.item_double(), 1.5);
}

// --- reshape / view ------------------------------------------------------------------------

TEST(Views, ReshapeIsAViewWhenPossible) {
  Tensor x = iota<float>({2, 3, 4});
  Tensor r = reshape(x, {6, 4});
  EXPECT_TRUE(r.shares_storage(x));
  EXPECT_EQ(r.strides(), (Strides{4, 1}));
  EXPECT_EQ(values(r), arange_d(24));
  Tensor r2 = reshape(x, {-1, 3});
  EXPECT_EQ(r2.shape(), (Shape{8, 3}));
  EXPECT_TRUE(r2.shares_storage(x));
  EXPECT_EQ(reshape(x, {24}).shape(), (Shape{24}));
  EXPECT_TRUE(reshape(x, {2, 3, 4}).same(x));  // same shape: the tensor itself
  // Reshaping a slice that keeps rows dense is still a view.
  Tensor rows = slice(reshape(x, {6, 4}), 0, 1, 5);
  Tensor rr = reshape(rows, {2, 2, 4});
  EXPECT_TRUE(rr.shares_storage(x));
  EXPECT_EQ(values(rr), values(rows));
  // 0-d and one-element tensors.
  Tensor s = from_vec<float>({7}, {});
  EXPECT_EQ(reshape(s, {1, 1}).shape(), (Shape{1, 1}));
  EXPECT_EQ(reshape(reshape(s, {1, 1}), {}).item_double(), 7.0);
  // Empty tensors reshape freely between shapes with 0 elements.
  EXPECT_EQ(reshape(Tensor::empty({0, 3}, DType::Float32), {3, 0, 5}).shape(), (Shape{3, 0, 5}));
}

TEST(Views, ReshapeCopiesWhenStridesDontAllow) {
  Tensor x = iota<float>({3, 4});
  Tensor tr = transpose(x, 0, 1);  // (4, 3)
  Tensor r = reshape(tr, {12});
  EXPECT_FALSE(r.shares_storage(x));
  EXPECT_EQ(values(r), values(tr));
  EXPECT_EQ(values(r), dvec({0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  // Three of four columns can't be flattened without a copy either.
  Tensor cols = narrow(x, 1, 0, 3);  // (3, 3), strides (4, 1)
  Tensor rc = reshape(cols, {9});
  EXPECT_FALSE(rc.shares_storage(x));
  EXPECT_EQ(values(rc), dvec({0, 1, 2, 4, 5, 6, 8, 9, 10}));
  // But every other column of a 4-wide matrix is evenly spaced: a view with stride 2.
  Tensor even = reshape(slice(x, 1, 0, 4, 2), {6});
  EXPECT_TRUE(even.shares_storage(x));
  EXPECT_EQ(even.strides(), (Strides{2}));
  EXPECT_EQ(values(even), dvec({0, 2, 4, 6, 8, 10}));
  EXPECT_THROW(reshape(x, {5, -1}), ValueError);
  EXPECT_THROW(reshape(x, {-1, -1}), ValueError);
  EXPECT_THROW(reshape(x, {13}), ValueError);
  EXPECT_THROW(reshape(x, {-1, int64_t(1) << 62, 4}), ValueError);  // product overflows
}

TEST(Views, ViewRequiresCompatibleStrides) {
  Tensor x = iota<float>({2, 3, 4});
  Tensor y = transpose(x, 0, 2);  // (4, 3, 2), strides (1, 4, 12)
  // Splitting a dim or adding size-1 dims works on any strides.
  Tensor v = view(y, {2, 2, 3, 2});
  EXPECT_TRUE(v.shares_storage(x));
  EXPECT_EQ(v.strides(), (Strides{2, 1, 4, 12}));
  EXPECT_EQ(values(v), values(y));
  Tensor v1 = view(y, {4, 1, 3, 2, 1});
  EXPECT_EQ(values(v1), values(y));
  // Merging dims 1 and 2 would span two subspaces.
  EXPECT_THROW(view(y, {4, 6}), ValueError);
  EXPECT_THROW(view(y, {24}), ValueError);
  try {
    view(y, {24});
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("reshape"), std::string::npos) << e.what();
  }
  // reshape falls back to a copy for the same request.
  EXPECT_EQ(values(reshape(y, {24})), values(y));
  // Dense tensors view freely.
  EXPECT_EQ(view(x, {4, 6}).strides(), (Strides{6, 1}));
}

// --- permute / transpose -------------------------------------------------------------------

TEST(Views, PermuteAndTranspose) {
  Tensor x = iota<float>({2, 3, 4});
  Tensor p = permute(x, {2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.strides(), (Strides{1, 12, 4}));
  EXPECT_TRUE(p.shares_storage(x));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(at(p, {i, j, k}), at(x, {j, k, i}));
  EXPECT_EQ(permute(x, {-1, 0, 1}).shape(), (Shape{4, 2, 3}));
  Tensor t = transpose(x, 0, -1);
  EXPECT_EQ(t.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(at(t, {3, 1, 0}), at(x, {0, 1, 3}));
  // Permuting back restores the original geometry.
  Tensor back = permute(p, {1, 2, 0});
  EXPECT_EQ(back.strides(), x.strides());
  EXPECT_EQ(values(back), values(x));
  EXPECT_THROW(permute(x, {0, 0, 1}), ValueError);
  EXPECT_THROW(permute(x, {0, 1}), ValueError);
  EXPECT_THROW(permute(x, {0, 1, 3}), IndexError);
  EXPECT_THROW(transpose(x, 0, 3), IndexError);
  Tensor m = iota<float>({2, 5});
  EXPECT_EQ(tandem::t(m).shape(), (Shape{5, 2}));
  Tensor v = iota<float>({5});
  EXPECT_TRUE(tandem::t(v).same(v));  // 1-D: returned as it is
  EXPECT_THROW(tandem::t(x), ValueError);
}

// --- slice / select / narrow / diagonal ----------------------------------------------------

TEST(Views, SliceNumpySemantics) {
  Tensor x = iota<float>({10});
  auto S = [&](std::optional<int64_t> a, std::optional<int64_t> b, int64_t step) {
    Tensor s = slice(x, 0, a, b, step);
    EXPECT_TRUE(s.shares_storage(x));
    return values(s);
  };
  using std::nullopt;
  EXPECT_EQ(S(1, 7, 2), dvec({1, 3, 5}));
  EXPECT_EQ(S(nullopt, nullopt, 3), dvec({0, 3, 6, 9}));
  EXPECT_EQ(S(-3, nullopt, 1), dvec({7, 8, 9}));
  // Negative steps.
  EXPECT_EQ(S(nullopt, nullopt, -1), dvec({9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(S(8, 2, -3), dvec({8, 5}));
  EXPECT_EQ(S(nullopt, -3, -1), dvec({9, 8}));
  EXPECT_EQ(S(-1, -11, -4), dvec({9, 5, 1}));
  // Out-of-range bounds clamp; reversed bounds give empty slices.
  EXPECT_EQ(S(-100, 100, 1), arange_d(10));
  EXPECT_EQ(S(5, 2, 1), dvec({}));
  EXPECT_EQ(S(100, nullopt, 1), dvec({}));
  EXPECT_EQ(S(100, nullopt, -2), dvec({9, 7, 5, 3, 1}));
  EXPECT_EQ(S(-100, nullopt, -1), dvec({}));
  // Huge steps don't overflow the length computation.
  EXPECT_EQ(S(0, nullopt, INT64_MAX), dvec({0}));
  EXPECT_EQ(S(nullopt, nullopt, INT64_MIN), dvec({9}));
  EXPECT_EQ(S(INT64_MIN, INT64_MAX, 4), dvec({0, 4, 8}));
  EXPECT_THROW(slice(x, 0, 0, 5, 0), ValueError);
  EXPECT_THROW(slice(from_vec<float>({1}, {}), 0, 0, 1, 1), IndexError);

  // Along an inner dim of a 2-D tensor, and composed slices.
  Tensor m = iota<float>({3, 4});
  Tensor c = slice(m, 1, nullopt, nullopt, -2);  // columns 3, 1
  EXPECT_EQ(c.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(c), dvec({3, 1, 7, 5, 11, 9}));
  Tensor cc = slice(c, 0, nullopt, nullopt, -1);
  EXPECT_EQ(values(cc), dvec({11, 9, 7, 5, 3, 1}));
  Tensor empty_rows = slice(m, 0, 2, 2, 1);
  EXPECT_EQ(empty_rows.shape(), (Shape{0, 4}));
}

TEST(Views, SelectNarrowDiagonal) {
  Tensor x = iota<float>({3, 4});
  EXPECT_EQ(values(select(x, 0, 1)), dvec({4, 5, 6, 7}));
  EXPECT_EQ(values(select(x, 1, -1)), dvec({3, 7, 11}));
  EXPECT_EQ(select(x, 1, 2).shape(), (Shape{3}));
  EXPECT_EQ(select(select(x, 0, 2), 0, 3).item_double(), 11.0);
  EXPECT_THROW(select(x, 0, 3), IndexError);
  EXPECT_THROW(select(x, 1, -5), IndexError);
  EXPECT_THROW(select(from_vec<float>({1}, {}), 0, 0), IndexError);

  EXPECT_EQ(values(narrow(x, 1, 1, 2)), dvec({1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(values(narrow(x, 0, -1, 1)), dvec({8, 9, 10, 11}));
  EXPECT_EQ(narrow(x, 0, 3, 0).shape(), (Shape{0, 4}));
  EXPECT_THROW(narrow(x, 0, 2, 2), IndexError);
  EXPECT_THROW(narrow(x, 0, 1, INT64_MAX), IndexError);
  EXPECT_THROW(narrow(x, 0, 4, 0), IndexError);

  // numpy.diagonal of arange(12).reshape(3, 4).
  EXPECT_EQ(values(diagonal(x)), dvec({0, 5, 10}));
  EXPECT_EQ(values(diagonal(x, 1)), dvec({1, 6, 11}));
  EXPECT_EQ(values(diagonal(x, -1)), dvec({4, 9}));
  EXPECT_EQ(values(diagonal(x, 3)), dvec({3}));
  EXPECT_EQ(values(diagonal(x, 4)), dvec({}));
  EXPECT_EQ(values(diagonal(x, -2)), dvec({8}));
  EXPECT_EQ(values(diagonal(x, -3)), dvec({}));
  EXPECT_EQ(values(diagonal(x, 0, 1, 0)), dvec({0, 5, 10}));
  EXPECT_TRUE(diagonal(x).shares_storage(x));
  // Batched: the diagonal dim goes last.
  Tensor b = iota<float>({2, 3, 3});
  Tensor d = diagonal(b, 0, 1, 2);
  EXPECT_EQ(d.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(d), dvec({0, 4, 8, 9, 13, 17}));
  EXPECT_THROW(diagonal(iota<float>({3})), ValueError);
  EXPECT_THROW(diagonal(x, 0, 1, 1), ValueError);
}

// --- expand / squeeze / unsqueeze ----------------------------------------------------------

TEST(Views, ExpandUsesZeroStrides) {
  Tensor x = from_vec<float>({1, 2, 3}, {3, 1});
  Tensor e = expand(x, {2, 3, 4});
  EXPECT_EQ(e.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(e.strides(), (Strides{0, 1, 0}));
  EXPECT_TRUE(e.shares_storage(x));
  for (int64_t k = 0; k < e.numel(); ++k) {
    auto idx = unravel(k, e.shape());
    EXPECT_EQ(at(e, idx), double(idx[1] + 1));
  }
  EXPECT_EQ(expand(x, {-1, 5}).shape(), (Shape{3, 5}));
  EXPECT_EQ(expand(x, {3, 1}).strides(), x.strides());
  EXPECT_EQ(expand(x, {0, 3, 0}).shape(), (Shape{0, 3, 0}));
  EXPECT_EQ(values(broadcast_to(from_vec<float>({7}, {}), {2, 2})), dvec({7, 7, 7, 7}));
  EXPECT_THROW(expand(x, {3, 4, 5}), ValueError);   // 3 -> 4 is not a broadcast
  EXPECT_THROW(expand(x, {4}), ValueError);         // fewer dims than the tensor
  EXPECT_THROW(expand(x, {-1, 3, 1}), ValueError);  // -1 for a new leading dim
  EXPECT_THROW(expand(x, {3, -2}), ValueError);     // negative size on a size-1 dim
  // Expanding a view keeps its offset and other strides.
  Tensor col = select(iota<float>({2, 3}), 1, 2);  // {2, 5}, offset 2, stride 3
  Tensor ec = expand(unsqueeze(col, 1), {2, 4});
  EXPECT_EQ(ec.strides(), (Strides{3, 0}));
  EXPECT_EQ(values(ec), dvec({2, 2, 2, 2, 5, 5, 5, 5}));
}

TEST(Views, SqueezeUnsqueeze) {
  Tensor x = iota<float>({1, 3, 1, 2});
  Tensor s = squeeze(x);
  EXPECT_EQ(s.shape(), (Shape{3, 2}));
  EXPECT_TRUE(s.shares_storage(x));
  EXPECT_EQ(values(s), values(x));
  EXPECT_EQ(squeeze(x, std::vector<int64_t>{0}).shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(squeeze(x, std::vector<int64_t>{-2, 0}).shape(), (Shape{3, 2}));
  EXPECT_EQ(squeeze(x, std::vector<int64_t>{1}).shape(), (Shape{1, 3, 1, 2}));  // size 3 stays
  EXPECT_THROW(squeeze(x, std::vector<int64_t>{4}), IndexError);
  EXPECT_EQ(squeeze(from_vec<float>({1}, {})).dim(), 0);

  Tensor y = iota<float>({2, 3});
  Tensor u0 = unsqueeze(y, 0);
  EXPECT_EQ(u0.shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(unsqueeze(y, 1).shape(), (Shape{2, 1, 3}));
  Tensor ul = unsqueeze(y, -1);
  EXPECT_EQ(ul.shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(ul.strides(), (Strides{3, 1, 1}));
  EXPECT_TRUE(u0.is_contiguous());
  EXPECT_EQ(values(ul), values(y));
  EXPECT_THROW(unsqueeze(y, 3), IndexError);
  EXPECT_EQ(unsqueeze(from_vec<float>({1}, {}), 0).shape(), (Shape{1}));
  // On a transposed tensor the new dim keeps later reshapes viewable.
  Tensor ut = unsqueeze(transpose(y, 0, 1), 1);
  EXPECT_EQ(ut.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(values(ut), values(transpose(y, 0, 1)));
}

// --- split / chunk / unbind ----------------------------------------------------------------

TEST(Views, SplitChunkUnbind) {
  Tensor x = iota<float>({7, 2});
  auto parts = split(x, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(parts[2].shape(), (Shape{1, 2}));
  EXPECT_EQ(values(parts[1]), dvec({6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(values(parts[2]), dvec({12, 13}));
  for (auto& p : parts) EXPECT_TRUE(p.shares_storage(x));

  auto cols = split(x, 1, 1);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(values(cols[1]), dvec({1, 3, 5, 7, 9, 11, 13}));

  auto sz = split_sizes(x, {2, 0, 5});
  ASSERT_EQ(sz.size(), 3u);
  EXPECT_EQ(sz[1].shape(), (Shape{0, 2}));
  EXPECT_EQ(values(sz[2]), dvec({4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
  EXPECT_THROW(split_sizes(x, {2, 2}), ValueError);
  EXPECT_THROW(split(x, 0), ValueError);

  // chunk: ceil(7 / 3) = 3 rows per chunk -> 3, 3, 1; chunk(7, 4) -> 2, 2, 2, 1.
  auto ch = chunk(x, 3);
  ASSERT_EQ(ch.size(), 3u);
  EXPECT_EQ(ch[2].shape(), (Shape{1, 2}));
  auto ch4 = chunk(x, 4);
  ASSERT_EQ(ch4.size(), 4u);
  EXPECT_EQ(ch4[3].shape(), (Shape{1, 2}));
  // More chunks than rows gives one row each.
  EXPECT_EQ(chunk(x, 10).size(), 7u);
  EXPECT_EQ(chunk(x, INT64_MAX).size(), 7u);
  // An empty dim gives `chunks` empty pieces, as in PyTorch.
  EXPECT_EQ(chunk(Tensor::empty({0}, DType::Float32), 3).size(), 3u);
  EXPECT_THROW(chunk(x, 0), ValueError);

  auto rows = unbind(x);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[3].shape(), (Shape{2}));
  EXPECT_EQ(values(rows[3]), dvec({6, 7}));
  auto cs = unbind(x, -1);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(values(cs[0]), dvec({0, 2, 4, 6, 8, 10, 12}));
  EXPECT_THROW(unbind(from_vec<float>({1}, {})), ValueError);
}

TEST(Views, FlattenUnflatten) {
  Tensor x = iota<float>({2, 3, 4});
  EXPECT_EQ(flatten(x).shape(), (Shape{24}));
  EXPECT_EQ(flatten(x, 1).shape(), (Shape{2, 12}));
  EXPECT_EQ(flatten(x, 0, 1).shape(), (Shape{6, 4}));
  EXPECT_TRUE(flatten(x).shares_storage(x));
  EXPECT_EQ(flatten(from_vec<float>({3}, {})).shape(), (Shape{1}));
  EXPECT_THROW(flatten(x, 2, 1), ValueError);
  Tensor u = unflatten(x, 2, {2, -1});
  EXPECT_EQ(u.shape(), (Shape{2, 3, 2, 2}));
  EXPECT_EQ(values(u), values(x));
}

TEST(Views, AsStridedBoundsChecked) {
  Tensor x = iota<float>({6});
  Tensor w = as_strided(x, {4, 3}, {1, 1}, 0);  // sliding windows
  EXPECT_EQ(values(w), dvec({0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5}));
  EXPECT_EQ(values(as_strided(x, {3}, {-2}, 5)), dvec({5, 3, 1}));
  EXPECT_THROW(as_strided(x, {4, 3}, {2, 1}, 0), IndexError);
  EXPECT_THROW(as_strided(x, {3}, {-2}, 3), IndexError);
  EXPECT_EQ(as_strided(x, {0, 3}, {100, 100}, 0).numel(), 0);
  EXPECT_THROW(as_strided(x, {3}, {INT64_MAX}, 0), IndexError);  // span overflows
  EXPECT_THROW(as_strided(x, {2, 2}, {INT64_MAX, INT64_MAX}, 0), IndexError);
}

// --- writes through views update the base ---------------------------------------------------

TEST(Views, WritesThroughViewsReachTheBase) {
  Tensor x = from_vec<float>(std::vector<float>(12, 0.0f), {3, 4});
  fill_(slice(x, 1, 1, 4, 2), 5);  // columns 1 and 3
  EXPECT_EQ(values(x), dvec({0, 5, 0, 5, 0, 5, 0, 5, 0, 5, 0, 5}));
  copy_(select(x, 0, 2), from_vec<float>({1, 2, 3, 4}, {4}));
  EXPECT_EQ(values(select(x, 0, 2)), dvec({1, 2, 3, 4}));
  // A reversed view: element i of the view is element 3 - i of the row.
  copy_(slice(select(x, 0, 0), 0, std::nullopt, std::nullopt, -1),
        from_vec<float>({10, 20, 30, 40}, {4}));
  EXPECT_EQ(values(select(x, 0, 0)), dvec({40, 30, 20, 10}));
  // A transposed view, broadcasting a column into it, with dtype conversion.
  Tensor tr = transpose(x, 0, 1);                                          // (4, 3)
  copy_(slice(tr, 1, 1, 2, 1), from_vec<int32_t>({7, 8, 9, 10}, {4, 1}));  // row 1 of x
  EXPECT_EQ(values(select(x, 0, 1)), dvec({7, 8, 9, 10}));
  // The diagonal.
  fill_(diagonal(x), -1);
  EXPECT_EQ(at(x, {0, 0}), -1.0);
  EXPECT_EQ(at(x, {1, 1}), -1.0);
  EXPECT_EQ(at(x, {2, 2}), -1.0);
  EXPECT_EQ(at(x, {2, 3}), 4.0);
  // Through a chain: reshape (view) -> split -> fill.
  Tensor y = from_vec<double>(std::vector<double>(8, 1.0), {2, 4});
  auto halves = split(reshape(y, {8}), 4);
  fill_(halves[1], 2.5);
  EXPECT_EQ(values(y), dvec({1, 1, 1, 1, 2.5, 2.5, 2.5, 2.5}));
  // fill_ into an int8 slice converts the value.
  Tensor z = from_vec<int8_t>({1, 2, 3, 4}, {4});
  fill_(slice(z, 0, 1, 3), -7);
  EXPECT_EQ(values(z), dvec({1, -7, -7, 4}));
  EXPECT_THROW(copy_(select(x, 0, 0), iota<float>({3})), ValueError);
}

// overlaps() compares byte ranges, not just the storage: disjoint slices of one buffer (a
// compiled graph's arena slots) do not overlap, shifted or transposed views do.
TEST(TensorViews, OverlapsComparesByteRanges) {
  Tensor base = Tensor::empty({16}, DType::Float32);
  Tensor a = Tensor::make_view(base, {8}, {1}, 0), b = Tensor::make_view(base, {8}, {1}, 8);
  EXPECT_TRUE(a.shares_storage(b));
  EXPECT_FALSE(a.overlaps(b));
  Tensor c = Tensor::make_view(base, {8}, {1}, 4);
  EXPECT_TRUE(a.overlaps(c) && c.overlaps(b));
  Tensor m = Tensor::make_view(base, {4, 4}, {4, 1}, 0);
  EXPECT_TRUE(m.overlaps(Tensor::make_view(base, {4, 4}, {1, 4}, 0)));  // its transpose
  EXPECT_FALSE(a.overlaps(Tensor::empty({8}, DType::Float32)));         // another storage
  EXPECT_FALSE(a.overlaps(Tensor::make_view(base, {0}, {1}, 2)));       // empty
}
