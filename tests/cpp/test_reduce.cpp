#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "tandem/core/error.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;
using std::nullopt;

namespace {

enum class K { Sum, Mean, Prod, Max, Min, All, Any };

// Reduces x over `dims` (wrapped, any order) by walking its elements one by one in double.
std::vector<double> ref_reduce(const Tensor& x, std::vector<int64_t> dims, K k) {
  for (auto& d : dims) d = d < 0 ? d + x.dim() : d;
  std::vector<bool> red(size_t(x.dim()), false);
  for (int64_t d : dims) red[size_t(d)] = true;
  Shape out_shape;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!red[size_t(d)]) out_shape.push_back(x.shape()[d]);
  double init = k == K::Prod || k == K::All ? 1.0
                : k == K::Max               ? -INFINITY
                : k == K::Min               ? INFINITY
                                            : 0.0;
  std::vector<double> acc(size_t(numel_of(out_shape)), init);
  std::vector<int64_t> count(acc.size(), 0);
  for (int64_t e = 0; e < x.numel(); ++e) {
    auto idx = unravel(e, x.shape());
    int64_t o = 0;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (!red[size_t(d)]) o = o * x.shape()[d] + idx[size_t(d)];
    double v = at(x, idx), &a = acc[size_t(o)];
    count[size_t(o)]++;
    switch (k) {
      case K::Sum:
      case K::Mean:
        a += v;
        break;
      case K::Prod:
        a *= v;
        break;
      case K::Max:
        a = (std::isnan(a) || std::isnan(v)) ? NAN : std::max(a, v);
        break;
      case K::Min:
        a = (std::isnan(a) || std::isnan(v)) ? NAN : std::min(a, v);
        break;
      case K::All:
        a = (a != 0 && v != 0) ? 1 : 0;
        break;
      case K::Any:
        a = (a != 0 || v != 0) ? 1 : 0;
        break;
    }
  }
  if (k == K::Mean)
    for (size_t i = 0; i < acc.size(); ++i) acc[i] /= double(count[i]);
  return acc;
}

Tensor run(K k, const Tensor& x, const DimList& dims, bool keepdim) {
  switch (k) {
    case K::Sum:
      return sum(x, dims, keepdim);
    case K::Mean:
      return mean(x, dims, keepdim);
    case K::Prod:
      return prod(x, dims, keepdim);
    case K::Max:
      return amax(x, dims, keepdim);
    case K::Min:
      return amin(x, dims, keepdim);
    case K::All:
      return all(x, dims, keepdim);
    case K::Any:
      return any(x, dims, keepdim);
  }
  return Tensor();
}

const char* kname(K k) {
  static const char* n[] = {"sum", "mean", "prod", "amax", "amin", "all", "any"};
  return n[int(k)];
}

template <typename T>
Tensor rand_t(const Shape& shape, uint32_t seed, double lo, double hi) {
  auto v = random_values(size_t(numel_of(shape)), lo, hi, seed);
  std::vector<T> t(v.begin(), v.end());
  return from_vec<T>(t, shape);
}

// Checks op k over every listed dim set, with and without keepdim, against ref_reduce.
void check_all_dim_sets(const Tensor& x, K k, double rtol) {
  std::vector<DimList> sets = {nullopt,
                               std::vector<int64_t>{0},
                               std::vector<int64_t>{1},
                               std::vector<int64_t>{2},
                               std::vector<int64_t>{-1},
                               std::vector<int64_t>{0, 1},
                               std::vector<int64_t>{2, 0},
                               std::vector<int64_t>{1, -1},
                               std::vector<int64_t>{0, 1, 2}};
  for (const DimList& dl : sets) {
    std::vector<int64_t> dims = dl ? *dl : std::vector<int64_t>{0, 1, 2};
    std::string what = std::string(kname(k)) + " dims=" + (dl ? shape_str(*dl) : "None") +
                       " shape=" + shape_str(x.shape()) + " strides=" + shape_str(x.strides());
    std::vector<double> want = ref_reduce(x, dims, k);
    for (bool keepdim : {false, true}) {
      Tensor r = run(k, x, dl, keepdim);
      Shape ws;
      for (int64_t d = 0; d < x.dim(); ++d) {
        bool reduced = std::find_if(dims.begin(), dims.end(), [&](int64_t e) {
                         return (e < 0 ? e + x.dim() : e) == d;
                       }) != dims.end();
        if (!reduced)
          ws.push_back(x.shape()[d]);
        else if (keepdim)
          ws.push_back(1);
      }
      EXPECT_EQ(r.shape(), ws) << what;
      EXPECT_TRUE(all_close(values(r), want, rtol, rtol)) << what << " keepdim=" << keepdim;
    }
  }
}

}  // namespace

TEST(Reduce, AllOpsAllDimSetsContiguousAndPermuted) {
  Tensor x64 = rand_t<double>({3, 4, 5}, 1, -2, 2);
  Tensor x32 = rand_t<float>({3, 4, 5}, 2, -2, 2);
  Tensor p64 = rand_t<double>({3, 4, 5}, 3, 0.5, 1.5);  // keeps products near 1
  for (K k : {K::Sum, K::Mean, K::Max, K::Min}) {
    check_all_dim_sets(x64, k, 1e-12);
    check_all_dim_sets(x32, k, 1e-5);
    check_all_dim_sets(permute(x64, {2, 0, 1}), k, 1e-12);
    check_all_dim_sets(transpose(x32, 0, 1), k, 1e-5);
    // Negative strides and an offset.
    check_all_dim_sets(slice(permute(x64, {1, 2, 0}), 1, nullopt, nullopt, -1), k, 1e-12);
  }
  check_all_dim_sets(p64, K::Prod, 1e-12);
  check_all_dim_sets(permute(p64, {2, 1, 0}), K::Prod, 1e-12);
  // all / any on bool and on float (non-zero is true, NaN too).
  Tensor b = Tensor::empty({3, 4, 5}, DType::Bool);
  auto r = random_values(60, 0, 1, 4);
  for (int i = 0; i < 60; ++i) b.data<bool>()[i] = r[size_t(i)] < 0.8;
  Tensor f = rand_t<float>({3, 4, 5}, 5, -1, 1);
  for (int i = 0; i < 60; i += 7) f.data<float>()[i] = 0;
  f.data<float>()[3] = NAN;
  for (K k : {K::All, K::Any}) {
    check_all_dim_sets(b, k, 0);
    check_all_dim_sets(permute(b, {1, 2, 0}), k, 0);
    check_all_dim_sets(f, k, 0);
    EXPECT_EQ(run(k, f, nullopt, false).dtype(), DType::Bool);
  }
}

TEST(Reduce, DtypesOfResults) {
  Tensor i = from_vec<int32_t>({2147483647, 2147483647, -5}, {3});
  Tensor s = sum(i);
  EXPECT_EQ(s.dtype(), DType::Int64);  // integers accumulate in int64: no overflow here
  EXPECT_EQ(s.item().to_int(), int64_t(2147483647) * 2 - 5);
  EXPECT_EQ(sum(from_bools({1, 1, 0, 1}, {4})).item().to_int(), 3);
  EXPECT_EQ(prod(from_vec<uint8_t>({200, 3}, {2})).item().to_int(), 600);
  // Integer overflow wraps around (numpy and PyTorch do the same), without UB.
  EXPECT_EQ(sum(from_vec<int64_t>({INT64_MAX, 1}, {2})).item().to_int(), INT64_MIN);
  EXPECT_EQ(prod(from_vec<int64_t>({int64_t(1) << 32, int64_t(1) << 32, 5}, {3})).item().to_int(),
            0);
  EXPECT_EQ(prod(from_vec<int16_t>({300, -300}, {2}), nullopt, false, DType::Int16).item().to_int(),
            int16_t(-24464));
  EXPECT_EQ(amax(from_vec<int8_t>({-3, 100, 7}, {3})).dtype(), DType::Int8);
  EXPECT_EQ(amax(from_vec<int8_t>({-3, 100, 7}, {3})).item().to_int(), 100);
  EXPECT_EQ(amin(from_vec<int16_t>({-3, 100, 7}, {3})).item().to_int(), -3);
  // dtype= accumulates in the requested type.
  Tensor f = from_vec<float>({1e8f, 1, -1e8f, 1}, {4});
  Tensor sd = sum(f, nullopt, false, DType::Float64);
  EXPECT_EQ(sd.dtype(), DType::Float64);
  EXPECT_EQ(sd.item_double(), 2.0);
  EXPECT_EQ(mean(from_vec<int32_t>({1, 2}, {2}), nullopt, false, DType::Float32).item_double(),
            1.5);
  // Float16 reduces in float32 and rounds once at the end.
  Tensor h = Tensor::empty({3}, DType::Float16);
  for (int k = 0; k < 3; ++k) h.data<Half>()[k] = Half{float_to_half(1000.25f + float(k))};
  Tensor hs = sum(h);
  EXPECT_EQ(hs.dtype(), DType::Float16);
  float exact = 0;
  for (int k = 0; k < 3; ++k) exact += half_to_float(h.data<Half>()[k].bits);
  EXPECT_EQ(hs.item_double(), half_to_float(float_to_half(exact)));
  // 0-d inputs reduce over dim 0 / -1 to themselves.
  Tensor z = from_vec<double>({4.5}, {});
  EXPECT_EQ(sum(z, std::vector<int64_t>{0}).item_double(), 4.5);
  EXPECT_EQ(amax(z, std::vector<int64_t>{-1}, true).dim(), 0);
}

TEST(Reduce, MaxDimArgmaxTiesAndNaN) {
  Tensor x = from_vec<float>({1, 3, 3, 2, 5, 5, 1, 5}, {2, 4});
  auto [v, i] = max_dim(x, 1);
  EXPECT_EQ(values(v), (std::vector<double>{3, 5}));
  EXPECT_EQ(values(i), (std::vector<double>{1, 0}));  // the first occurrence wins
  EXPECT_EQ(i.dtype(), DType::Int64);
  auto [mv, mi] = min_dim(x, 1);
  EXPECT_EQ(values(mv), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(mi), (std::vector<double>{0, 2}));
  // Along dim 0 (inner dim kept): ties resolve to the first row that has the extreme.
  Tensor y = from_vec<int32_t>({4, 7, 2, 9, 4, 7, 8, 1, 0, 7, 8, 9}, {3, 4});
  auto [v0, i0] = max_dim(y, 0, true);
  EXPECT_EQ(v0.shape(), (Shape{1, 4}));
  EXPECT_EQ(values(v0), (std::vector<double>{4, 7, 8, 9}));
  EXPECT_EQ(values(i0), (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(values(argmin(y, 0)), (std::vector<double>{2, 0, 0, 1}));
  // Over the flattened tensor.
  EXPECT_EQ(argmax(y).item().to_int(), 3);
  EXPECT_EQ(argmax(y, nullopt, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(argmin(y).item().to_int(), 8);
  // On a transposed view, and a reversed one (first in the view's order, not memory's).
  EXPECT_EQ(values(argmax(transpose(y, 0, 1), 1)), (std::vector<double>{0, 0, 1, 0}));
  Tensor rv = slice(from_vec<double>({2, 9, 9, 1}, {4}), 0, nullopt, nullopt, -1);
  EXPECT_EQ(argmax(rv).item().to_int(), 1);
  // NaN is the max and the min, at its first occurrence.
  Tensor n = from_vec<float>({1, NAN, 5, NAN, -2}, {5});
  auto [nv, ni] = max_dim(n, 0);
  EXPECT_TRUE(std::isnan(nv.item_double()));
  EXPECT_EQ(ni.item().to_int(), 1);
  auto [nmv, nmi] = min_dim(n, 0);
  EXPECT_TRUE(std::isnan(nmv.item_double()));
  EXPECT_EQ(nmi.item().to_int(), 1);
  // Float16 values keep their dtype.
  Tensor h = Tensor::empty({3}, DType::Float16);
  for (int k = 0; k < 3; ++k) h.data<Half>()[k] = Half{float_to_half(float(k % 2))};
  auto [hv, hi] = max_dim(h, 0);
  EXPECT_EQ(hv.dtype(), DType::Float16);
  EXPECT_EQ(hv.item_double(), 1.0);
  EXPECT_EQ(hi.item().to_int(), 1);
  // 0-d input.
  auto [zv, zi] = max_dim(from_vec<float>({3}, {}), 0);
  EXPECT_EQ(zv.item_double(), 3.0);
  EXPECT_EQ(zi.item().to_int(), 0);
}

TEST(Reduce, AmaxAminPropagateNaN) {
  for (int64_t n : {10, 100, 1000}) {  // scalar path, SIMD path with tail
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = float((i * 37) % 101);
    Tensor x = from_vec<float>(v, {n});
    EXPECT_EQ(amax(x).item_double(), *std::max_element(v.begin(), v.end())) << n;
    EXPECT_EQ(amin(x).item_double(), *std::min_element(v.begin(), v.end())) << n;
    for (int64_t pos : {int64_t(0), n / 2 + 1, n - 1}) {
      std::vector<float> w = v;
      w[size_t(pos)] = NAN;
      Tensor y = from_vec<float>(w, {n});
      EXPECT_TRUE(std::isnan(amax(y).item_double())) << n << " " << pos;
      EXPECT_TRUE(std::isnan(amin(y).item_double())) << n << " " << pos;
      Tensor yd = from_vec<double>(std::vector<double>(w.begin(), w.end()), {n});
      EXPECT_TRUE(std::isnan(amax(yd).item_double())) << n << " " << pos;
    }
  }
  // Inner-dim path: NaN in one column only.
  Tensor m = rand_t<float>({50, 3}, 7, -1, 1);
  m.data<float>()[20 * 3 + 1] = NAN;
  std::vector<double> r = values(amax(m, std::vector<int64_t>{0}));
  EXPECT_FALSE(std::isnan(r[0]));
  EXPECT_TRUE(std::isnan(r[1]));
  EXPECT_FALSE(std::isnan(r[2]));
  // -inf everywhere is a valid max.
  EXPECT_EQ(amax(from_vec<double>(std::vector<double>(70, -INFINITY), {70})).item_double(),
            -INFINITY);
}

class ReduceParallel : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = omp_get_max_threads();
    omp_set_num_threads(std::max(saved_, 4));
  }
  void TearDown() override { omp_set_num_threads(saved_); }
  int saved_ = 1;
};

TEST_F(ReduceParallel, SingleLongRow) {
  const int64_t n = int64_t(1) << 22;
  // Small integers: every partial sum is exact in float32, so the result must be exact.
  Tensor x = Tensor::empty({n}, DType::Float32);
  float* p = x.data<float>();
  double want = 0;
  for (int64_t i = 0; i < n; ++i) {
    p[i] = float(i % 7);
    want += p[i];
  }
  EXPECT_EQ(sum(x).item_double(), want);
  EXPECT_EQ(mean(x).item_double(), float(want / double(n)));
  EXPECT_EQ(sum(reshape(x, {1, n}), std::vector<int64_t>{1}).item_double(), want);
  p[n - 3] = 100;
  EXPECT_EQ(amax(x).item_double(), 100.0);
  EXPECT_EQ(argmax(x).item().to_int(), n - 3);
  p[n / 3] = -5;
  EXPECT_EQ(amin(x).item_double(), -5.0);
  p[n - 1] = NAN;
  EXPECT_TRUE(std::isnan(amax(x).item_double()));
  EXPECT_TRUE(std::isnan(amin(x).item_double()));
  // Two long rows.
  Tensor two = Tensor::empty({2, n / 2}, DType::Float64);
  for (int64_t i = 0; i < n; ++i) two.data<double>()[i] = double(i % 5) - (i < n / 2 ? 1 : 0);
  std::vector<double> s2 = values(sum(two, std::vector<int64_t>{1}));
  EXPECT_EQ(s2, ref_reduce(two, {1}, K::Sum));

  // all / any on one long bool row: a single deciding element anywhere must be seen.
  Tensor b = Tensor::empty({n}, DType::Bool);
  bool* q = b.data<bool>();
  for (int64_t pos : {int64_t(0), n / 4 + 5, n / 2 - 1, n - 1}) {
    std::fill(q, q + n, true);
    EXPECT_TRUE(all(b).item().to_int());
    q[pos] = false;
    EXPECT_FALSE(all(b).item().to_int()) << pos;
    std::fill(q, q + n, false);
    EXPECT_FALSE(any(b).item().to_int());
    q[pos] = true;
    EXPECT_TRUE(any(b).item().to_int()) << pos;
  }
  // Integer long row: int64 accumulation.
  Tensor iv = Tensor::empty({n}, DType::Int32);
  for (int64_t i = 0; i < n; ++i) iv.data<int32_t>()[i] = int32_t(i);
  EXPECT_EQ(sum(iv).item().to_int(), n * (n - 1) / 2);
}

TEST_F(ReduceParallel, LargeInnerDimsAndPermutedInputs) {
  // (O, R, I) = (1, 40, 3000): the kept inner dim spans several 1024-element blocks.
  Tensor a = rand_t<double>({40, 3000}, 11, -1, 1);
  EXPECT_TRUE(
      all_close(values(sum(a, std::vector<int64_t>{0})), ref_reduce(a, {0}, K::Sum), 1e-12, 1e-12));
  EXPECT_EQ(values(amin(a, std::vector<int64_t>{0})), ref_reduce(a, {0}, K::Min));
  // (O, R, I) = (7, 30, 700) on the threaded path.
  Tensor b = rand_t<float>({7, 30, 700}, 12, -1, 1);
  EXPECT_TRUE(
      all_close(values(sum(b, std::vector<int64_t>{1})), ref_reduce(b, {1}, K::Sum), 1e-5, 1e-5));
  EXPECT_EQ(values(amax(b, std::vector<int64_t>{1})), ref_reduce(b, {1}, K::Max));
  // Many short rows, and a permuted input that needs the copy to (O, R, I).
  Tensor c = rand_t<float>({300, 500}, 13, -1, 1);
  Tensor ct = transpose(c, 0, 1);  // (500, 300)
  EXPECT_TRUE(
      all_close(values(sum(ct, std::vector<int64_t>{1})), ref_reduce(ct, {1}, K::Sum), 1e-5, 1e-5));
  EXPECT_TRUE(all_close(values(mean(ct, std::vector<int64_t>{0})), ref_reduce(ct, {0}, K::Mean),
                        1e-5, 1e-5));
  // Arg reductions with many outputs: threads split the (O, I) pairs.
  auto [v, i] = max_dim(c, 0);
  auto [v2, i2] = min_dim(ct, 1);
  std::vector<double> want_v, want_i, want_v2, want_i2;
  for (int64_t col = 0; col < 500; ++col) {
    double best = -INFINITY, worst = INFINITY;
    int64_t bi = 0, wi = 0;
    for (int64_t r = 0; r < 300; ++r) {
      double x = at(c, {r, col});
      if (x > best) best = x, bi = r;
      if (x < worst) worst = x, wi = r;
    }
    want_v.push_back(best);
    want_i.push_back(double(bi));
    want_v2.push_back(worst);
    want_i2.push_back(double(wi));
  }
  EXPECT_EQ(values(v), want_v);
  EXPECT_EQ(values(i), want_i);
  EXPECT_EQ(values(v2), want_v2);
  EXPECT_EQ(values(i2), want_i2);
}

TEST(Reduce, EmptyReductions) {
  Tensor e = Tensor::empty({0, 3}, DType::Float32);
  Tensor s = sum(e, std::vector<int64_t>{0});
  EXPECT_EQ(s.shape(), (Shape{3}));
  EXPECT_EQ(values(s), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(prod(e, std::vector<int64_t>{0})), (std::vector<double>{1, 1, 1}));
  EXPECT_TRUE(std::isnan(values(mean(e, std::vector<int64_t>{0}))[0]));
  EXPECT_EQ(sum(e).item_double(), 0.0);
  EXPECT_EQ(all(e).item().to_int(), 1);
  EXPECT_EQ(any(e).item().to_int(), 0);
  // Reducing the non-empty dim of an empty tensor is fine: an empty result.
  EXPECT_EQ(amax(e, std::vector<int64_t>{1}).shape(), (Shape{0}));
  // max / min have no identity: errors naming the op.
  EXPECT_TRUE(throws_with<IndexError>([&] { amax(e); }, {"amax", "zero-size", "[0, 3]"}));
  EXPECT_TRUE(
      throws_with<IndexError>([&] { amin(e, std::vector<int64_t>{0}); }, {"amin", "zero-size"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { max_dim(e, 0); }, {"max_dim", "size 0"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { argmax(e); }, {"size 0"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { argmin(e, 0); }, {"size 0"}));
  auto [v, i] = max_dim(e, 1);
  EXPECT_EQ(v.shape(), (Shape{0}));
  EXPECT_EQ(i.shape(), (Shape{0}));
}

TEST(Reduce, BadArguments) {
  Tensor x = rand_t<float>({2, 3}, 8, 0, 1);
  EXPECT_TRUE(throws_with<IndexError>([&] { sum(x, std::vector<int64_t>{2}); }, {"sum"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        sum(x, std::vector<int64_t>{1, -1});
      },
      {"sum", "multiple"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { mean(from_vec<int32_t>({1}, {1})); }, {"mean"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { max_dim(x, -3); }, {"max_dim"}));
}

TEST(Reduce, Composites) {
  Tensor x = rand_t<double>({4, 6}, 9, -3, 3);
  std::vector<double> m = ref_reduce(x, {1}, K::Mean);
  std::vector<double> want;
  for (int64_t r = 0; r < 4; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < 6; ++c) ss += std::pow(at(x, {r, c}) - m[size_t(r)], 2);
    want.push_back(ss / 5);
  }
  EXPECT_TRUE(all_close(values(var(x, std::vector<int64_t>{1})), want, 1e-12));
  for (double& w : want) w = std::sqrt(w);
  EXPECT_TRUE(all_close(values(tandem::std(x, std::vector<int64_t>{1})), want, 1e-12));
  std::vector<double> lse;
  for (int64_t r = 0; r < 4; ++r) {
    double s = 0;
    for (int64_t c = 0; c < 6; ++c) s += std::exp(at(x, {r, c}));
    lse.push_back(std::log(s));
  }
  EXPECT_TRUE(all_close(values(logsumexp(x, std::vector<int64_t>{1})), lse, 1e-12));
  EXPECT_EQ(count_nonzero(from_vec<float>({0, 1, 0, 2.5f, NAN}, {5})).item().to_int(), 3);
}
