#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <thread>

#include "tandem/core/error.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;
using std::nullopt;

namespace {

Tensor rand_tensor(const Shape& shape, DType dt, uint32_t seed, double lo = -10, double hi = 10) {
  auto v = random_values(size_t(numel_of(shape)), lo, hi, seed);
  Tensor t = Tensor::empty(shape, dt);
  for (size_t i = 0; i < v.size(); ++i) {
    char* p = static_cast<char*>(t.data_ptr()) + i * t.itemsize();
    switch (dt) {
      case DType::Float32:
        *reinterpret_cast<float*>(p) = float(v[i]);
        break;
      case DType::Float64:
        *reinterpret_cast<double*>(p) = v[i];
        break;
      case DType::Float16:
        *reinterpret_cast<uint16_t*>(p) = float_to_half(float(v[i]));
        break;
      case DType::BFloat16:
        *reinterpret_cast<uint16_t*>(p) = float_to_bf16(float(v[i]));
        break;
      case DType::Int32:
        *reinterpret_cast<int32_t*>(p) = int32_t(std::floor(v[i]));
        break;
      case DType::Int64:
        *reinterpret_cast<int64_t*>(p) = int64_t(std::floor(v[i]));
        break;
      case DType::Int16:
        *reinterpret_cast<int16_t*>(p) = int16_t(std::floor(v[i]));
        break;
      case DType::Int8:
        *reinterpret_cast<int8_t*>(p) = int8_t(std::floor(v[i]));
        break;
      case DType::UInt8:
        *reinterpret_cast<uint8_t*>(p) = uint8_t(std::fabs(std::floor(v[i])));
        break;
      case DType::Bool:
        *reinterpret_cast<bool*>(p) = v[i] > 0;
        break;
    }
  }
  return t;
}

// Reference for a binary op on two broadcastable tensors: elements read by index, the op
// applied in double, the result rounded through `round` (the output dtype's rounding).
template <typename F, typename R>
std::vector<double> ref_binary(const Tensor& a, const Tensor& b, F f, R round) {
  Shape out = broadcast_shapes(a.shape(), b.shape(), "ref");
  std::vector<double> r;
  for (int64_t k = 0; k < numel_of(out); ++k) {
    auto idx = unravel(k, out);
    auto pick = [&](const Tensor& t) {
      std::vector<int64_t> i(idx.end() - t.dim(), idx.end());
      for (int64_t d = 0; d < t.dim(); ++d)
        if (t.shape()[d] == 1) i[d] = 0;
      return at(t, i);
    };
    r.push_back(round(f(pick(a), pick(b))));
  }
  return r;
}
auto as_f32 = [](double v) { return double(float(v)); };
auto as_f64 = [](double v) { return v; };
auto as_f16 = [](double v) { return double(half_to_float(float_to_half(float(v)))); };
auto as_bf16 = [](double v) { return double(bf16_to_float(float_to_bf16(float(v)))); };
auto plus = [](double x, double y) { return x + y; };
auto times = [](double x, double y) { return x * y; };

}  // namespace

// --- layouts -------------------------------------------------------------------------------

TEST(Elementwise, Contiguous) {
  Tensor a = rand_tensor({5, 7}, DType::Float32, 1), b = rand_tensor({5, 7}, DType::Float32, 2);
  Tensor s = add(a, b);
  EXPECT_EQ(s.dtype(), DType::Float32);
  EXPECT_EQ(s.shape(), (Shape{5, 7}));
  EXPECT_EQ(values(s), ref_binary(a, b, plus, as_f32));  // exact: one rounding to float
  EXPECT_EQ(values(mul(a, b)), ref_binary(a, b, times, as_f32));
  EXPECT_TRUE(all_close(values(sub(a, b, 2)),
                        ref_binary(
                            a, b, [](double x, double y) { return x - 2 * y; }, as_f32),
                        1e-6, 1e-6));
  EXPECT_TRUE(
      all_close(values(div(a, b)), ref_binary(
                                       a, b, [](double x, double y) { return x / y; }, as_f32)));
  Tensor d = rand_tensor({3, 4}, DType::Float64, 3), e = rand_tensor({3, 4}, DType::Float64, 4);
  EXPECT_EQ(values(maximum(d, e)),
            ref_binary(
                d, e, [](double x, double y) { return std::max(x, y); }, as_f64));
  // 0-d and empty tensors.
  EXPECT_EQ(add(from_vec<float>({1.5f}, {}), from_vec<float>({2}, {})).item_double(), 3.5);
  Tensor z = add(Tensor::empty({0, 3}, DType::Float32), Tensor::empty({1, 3}, DType::Float32));
  EXPECT_EQ(z.shape(), (Shape{0, 3}));
}

TEST(Elementwise, BroadcastScalarRowColumn) {
  Tensor x = rand_tensor({3, 4}, DType::Float32, 5);
  Tensor s = add(x, scalar_tensor(Scalar(2.5)));
  EXPECT_EQ(s.dtype(), DType::Float32);  // a Python float doesn't widen a float32 tensor
  EXPECT_EQ(values(s), ref_binary(x, from_vec<double>({2.5}, {}), plus, as_f32));
  Tensor row = rand_tensor({4}, DType::Float32, 6);
  EXPECT_EQ(values(add(x, row)), ref_binary(x, row, plus, as_f32));
  EXPECT_EQ(values(add(row, x)), ref_binary(row, x, plus, as_f32));
  Tensor col = rand_tensor({3, 1}, DType::Float32, 7);
  EXPECT_EQ(values(mul(x, col)), ref_binary(x, col, times, as_f32));
  // Outer broadcast (3, 1) x (1, 4) and a rank-extending (2, 1, 4) x (3, 1).
  Tensor r2 = reshape(row, {1, 4});
  Tensor o = mul(col, r2);
  EXPECT_EQ(o.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(o), ref_binary(col, r2, times, as_f32));
  Tensor c3 = rand_tensor({2, 1, 4}, DType::Float32, 8);
  Tensor o3 = add(c3, col);
  EXPECT_EQ(o3.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(values(o3), ref_binary(c3, col, plus, as_f32));
  // Integer tensor times an int scalar stays int32.
  Tensor i = from_vec<int32_t>({1, -2, 3}, {3});
  Tensor m = mul(i, scalar_tensor(Scalar(int64_t(3))));
  EXPECT_EQ(m.dtype(), DType::Int32);
  EXPECT_EQ(values(m), (std::vector<double>{3, -6, 9}));
}

TEST(Elementwise, TransposedAndNegativeStrideInputs) {
  Tensor base = rand_tensor({3, 4}, DType::Float32, 9);
  Tensor tr = transpose(base, 0, 1);  // (4, 3), strides (1, 4)
  Tensor b = rand_tensor({4, 3}, DType::Float32, 10);
  EXPECT_EQ(values(add(tr, b)), ref_binary(tr, b, plus, as_f32));
  EXPECT_EQ(values(add(b, tr)), ref_binary(b, tr, plus, as_f32));
  Tensor rev = slice(b, 0, nullopt, nullopt, -1);
  EXPECT_EQ(values(mul(rev, tr)), ref_binary(rev, tr, times, as_f32));
  Tensor rev2 = slice(slice(b, 1, nullopt, nullopt, -2), 0, nullopt, nullopt, -1);  // (4, 2)
  Tensor c = rand_tensor({2}, DType::Float32, 11);
  EXPECT_EQ(values(add(rev2, c)), ref_binary(rev2, c, plus, as_f32));
  // An expanded (stride-0) input on the innermost dim next to a strided one.
  Tensor col = rand_tensor({4, 1}, DType::Float64, 12);
  Tensor ex = expand(col, {4, 3});
  EXPECT_EQ(values(add(tr, ex)), ref_binary(tr, ex, plus, as_f64));
}

TEST(Elementwise, OutputIntoStridedView) {
  // Every other column of a (4, 6) buffer.
  Tensor base = from_vec<float>(std::vector<float>(24, 0.0f), {4, 6});
  Tensor out = slice(base, 1, 0, 6, 2);
  Tensor other = rand_tensor({4, 3}, DType::Float32, 13);
  apply_inplace("add", out, other);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 6; ++j)
      EXPECT_EQ(at(base, {i, j}), j % 2 ? 0.0 : double(float(at(other, {i, j / 2}))));
  // A transposed output times a broadcast column.
  Tensor b2 = iota<float>({3, 4});
  Tensor outT = transpose(b2, 0, 1);  // (4, 3)
  Tensor col = from_vec<float>({1, 2, 3, 4}, {4, 1});
  std::vector<double> want = ref_binary(outT, col, times, as_f32);
  apply_inplace("mul", outT, col);
  EXPECT_EQ(values(outT), want);
  EXPECT_EQ(at(b2, {2, 3}), 11.0 * 4);
  // A float16 reversed view: computed in float32 and rounded on the way out.
  Tensor h = rand_tensor({8}, DType::Float16, 14);
  Tensor hv = slice(h, 0, nullopt, nullopt, -2);
  Tensor hx = rand_tensor({4}, DType::Float16, 15);
  std::vector<double> hwant = ref_binary(hv, hx, plus, as_f16);
  Tensor untouched = slice(h, 0, 0, nullopt, 2);
  std::vector<double> before = values(untouched);
  apply_inplace("add", hv, hx);
  EXPECT_EQ(values(hv), hwant);
  EXPECT_EQ(values(untouched), before);
  // An int32 output with an int8 operand: the int8 values convert on the way in.
  Tensor ib = from_vec<int32_t>({10, 20, 30, 40, 50, 60}, {2, 3});
  apply_inplace("sub", transpose(ib, 0, 1), from_vec<int8_t>({1, 2}, {2}));
  EXPECT_EQ(values(ib), (std::vector<double>{9, 19, 29, 38, 48, 58}));
  // Writing a float result into an int tensor is refused (can't cast).
  EXPECT_THROW(apply_inplace("add", ib, scalar_tensor(Scalar(0.5))), TypeError);
}

TEST(Elementwise, TernaryBroadcastAndStrides) {
  // where(cond, a, b): three operands with different broadcasts, strides and dtypes.
  Tensor cond = from_bools({1, 0, 0, 1}, {4, 1});
  Tensor a = transpose(rand_tensor({3, 4}, DType::Float32, 30), 0, 1);  // (4, 3)
  Tensor b = rand_tensor({3}, DType::Int32, 31);
  Tensor w = where(cond, a, b);
  EXPECT_EQ(w.dtype(), DType::Float32);
  EXPECT_EQ(w.shape(), (Shape{4, 3}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(at(w, {i, j}), at(cond, {i, 0}) ? at(a, {i, j}) : at(b, {j}));
  // addcmul(x, t1, t2, value) = x + value * t1 * t2, with a reversed operand.
  Tensor x = rand_tensor({2, 5}, DType::Float64, 32);
  Tensor t1 = slice(rand_tensor({5}, DType::Float64, 33), 0, nullopt, nullopt, -1);
  Tensor t2 = rand_tensor({2, 1}, DType::Float64, 34);
  Tensor r = addcmul(x, t1, t2, 0.5);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 5; ++j)
      EXPECT_NEAR(at(r, {i, j}), at(x, {i, j}) + 0.5 * at(t1, {j}) * at(t2, {i, 0}), 1e-12);
}

TEST(Elementwise, ManyDims) {
  // Up to kMaxDims (64, numpy's limit) dims work; size-1 dims are dropped before the loop.
  Shape s16(16, 1);
  s16[3] = 2;
  s16[15] = 3;
  Tensor a = iota<float>(s16);
  Tensor p = add(a, a);
  EXPECT_EQ(p.shape(), s16);
  EXPECT_EQ(values(p), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  // 64 dims whose strides cannot be merged (a transposed operand) keep every dim in the loop.
  Shape s64(64, 1);
  s64[0] = 2;
  s64[30] = 3;
  s64[63] = 2;
  Tensor c = iota<float>(s64);
  Tensor ct = transpose(c, 0, 63);  // same shape (2 and 2 swap), other strides
  Tensor q = add(c, ct);
  EXPECT_EQ(q.shape(), s64);
  std::vector<double> cv = values(c), got = values(q);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 2; ++k)
        EXPECT_EQ(got[size_t(i * 6 + j * 2 + k)],
                  cv[size_t(i * 6 + j * 2 + k)] + cv[size_t(k * 6 + j * 2 + i)]);
  // A 65th dim is refused wherever a tensor would get it, before any kernel runs.
  EXPECT_THROW(Tensor::empty(Shape(65, 1), DType::Float32), ValueError);
  EXPECT_THROW(reshape(c, Shape(65, 1)), ValueError);
  EXPECT_THROW(unsqueeze(c, 0), ValueError);
}

// --- dtypes --------------------------------------------------------------------------------

TEST(Elementwise, MixedDtypes) {
  Tensor i32 = from_vec<int32_t>({1, -2, 3, 2147483647}, {4});
  Tensor f64 = from_vec<double>({0.5, 0.25, -4, 1}, {4});
  Tensor r = add(i32, f64);
  EXPECT_EQ(r.dtype(), DType::Float64);
  EXPECT_EQ(values(r), (std::vector<double>{1.5, -1.75, -1, 2147483648.0}));
  Tensor u8 = from_vec<uint8_t>({200, 250, 0, 255}, {4});
  Tensor i8 = from_vec<int8_t>({-100, 127, -128, -1}, {4});
  Tensor s = add(u8, i8);
  EXPECT_EQ(s.dtype(), DType::Int16);  // no wraparound in either input type
  EXPECT_EQ(values(s), (std::vector<double>{100, 377, -128, 254}));
  Tensor bools = from_bools({1, 0, 1, 1}, {4});
  Tensor bi = add(bools, i8);
  EXPECT_EQ(bi.dtype(), DType::Int8);
  EXPECT_EQ(values(bi), (std::vector<double>{-99, 127, -127, 0}));
  Tensor i64 = from_vec<int64_t>({1, 2, 3, 4}, {4});
  Tensor h = rand_tensor({4}, DType::Float16, 16, -2, 2);
  Tensor ih = mul(i64, h);
  EXPECT_EQ(ih.dtype(), DType::Float16);
  EXPECT_EQ(values(ih), ref_binary(i64, h, times, as_f16));
  // Comparisons compute in the promoted type and return bool.
  Tensor lt_r = lt(i32, scalar_tensor(Scalar(2.5)));
  EXPECT_EQ(lt_r.dtype(), DType::Bool);
  EXPECT_EQ(values(lt_r), (std::vector<double>{1, 1, 0, 0}));
  // True division of integers gives float32.
  Tensor q = div(from_vec<int32_t>({7, -7}, {2}), from_vec<int32_t>({2, 2}, {2}));
  EXPECT_EQ(q.dtype(), DType::Float32);
  EXPECT_EQ(values(q), (std::vector<double>{3.5, -3.5}));
}

TEST(Elementwise, HalfAndBFloat16ComputeInFloat32) {
  for (DType dt : {DType::Float16, DType::BFloat16}) {
    auto round = dt == DType::Float16 ? +[](double v) { return as_f16(v); }
                                      : +[](double v) { return as_bf16(v); };
    Tensor a = rand_tensor({6, 5}, dt, 17), b = rand_tensor({5}, dt, 18);
    Tensor s = add(a, b);
    EXPECT_EQ(s.dtype(), dt);
    EXPECT_EQ(values(s), ref_binary(a, b, plus, round)) << dtype_name(dt);
    EXPECT_EQ(values(mul(a, b)), ref_binary(a, b, times, round)) << dtype_name(dt);
    // Against a float scalar: stays 16-bit; the scalar is rounded to float32 first.
    Tensor sc = mul(a, scalar_tensor(Scalar(0.1)));
    EXPECT_EQ(sc.dtype(), dt);
    EXPECT_EQ(values(sc), ref_binary(a, from_vec<float>({0.1f}, {}), times, round));
    // A unary op.
    Tensor n = neg(a);
    std::vector<double> va = values(a);
    for (double& v : va) v = -v;
    EXPECT_EQ(values(n), va);
  }
  Tensor h = rand_tensor({4}, DType::Float16, 19), bf = rand_tensor({4}, DType::BFloat16, 20);
  Tensor hb = add(h, bf);
  EXPECT_EQ(hb.dtype(), DType::Float32);
  EXPECT_EQ(values(hb), ref_binary(h, bf, plus, as_f32));
  // Overflow to inf happens at the final rounding, not before: 60000 + 60000 in float16.
  Tensor big = Tensor::empty({1}, DType::Float16);
  big.data<Half>()[0] = Half{float_to_half(60000.0f)};
  EXPECT_TRUE(std::isinf(values(add(big, big))[0]));
  EXPECT_EQ(values(sub(add(big, big), big))[0], INFINITY);
}

// --- large tensors take the OpenMP path ---------------------------------------------------------

class ElementwiseParallel : public ::testing::Test {
 protected:
  // At least 4 threads even on a small machine, so the threaded path and its chunk
  // boundaries are exercised everywhere.
  void SetUp() override {
    saved_ = omp_get_max_threads();
    omp_set_num_threads(std::max(saved_, 4));
  }
  void TearDown() override { omp_set_num_threads(saved_); }
  int saved_ = 1;
};

TEST_F(ElementwiseParallel, LargeContiguousBroadcastAndStrided) {
  const int64_t n = 300007;  // not a multiple of the tile or the thread chunk
  Tensor a = rand_tensor({n}, DType::Float32, 21), b = rand_tensor({n}, DType::Float32, 22);
  Tensor s = add(a, b);
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  const float* ps = s.data<float>();
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += ps[i] != pa[i] + pb[i];
  EXPECT_EQ(bad, 0);

  // Transposed float32 + int32 row (converted per tile): the fresh (513, 601) result takes
  // the transposed operand's layout, as PyTorch's; its float64 copy is row-major, so that
  // cast runs the transposed tiles with a conversion.
  Tensor m = rand_tensor({601, 513}, DType::Float32, 23);
  Tensor mt = transpose(m, 0, 1);  // (513, 601)
  Tensor row = rand_tensor({601}, DType::Int32, 24);
  Tensor r = add(mt, row);
  EXPECT_EQ(r.dtype(), DType::Float32);
  EXPECT_EQ(r.strides(), (Strides{1, 513}));
  Tensor rd = to_dtype(r, DType::Float64);
  EXPECT_TRUE(rd.is_contiguous());
  bad = 0;
  for (int64_t i = 0; i < 513; ++i)
    for (int64_t j = 0; j < 601; ++j) {
      float want = m.data<float>()[j * 513 + i] + float(row.data<int32_t>()[j]);
      bad += r.data<float>()[i + j * 513] != want;
      bad += rd.data<double>()[i * 601 + j] != double(want);
    }
  EXPECT_EQ(bad, 0);

  // Into a strided float64 view of a larger buffer, from a reversed float32 input.
  Tensor buf = from_vec<double>(std::vector<double>(size_t(2 * n), -1.0), {2 * n});
  Tensor out = slice(buf, 0, 1, nullopt, 2);  // n odd positions
  Tensor rev = slice(a, 0, nullopt, nullopt, -1);
  apply_inplace("add", out, rev);
  bad = 0;
  const double* pbuf = buf.data<double>();
  for (int64_t i = 0; i < n; ++i) {
    bad += pbuf[2 * i] != -1.0;
    bad += pbuf[2 * i + 1] != -1.0 + double(pa[n - 1 - i]);
  }
  EXPECT_EQ(bad, 0);

  // Float16 output on the parallel path.
  Tensor h = rand_tensor({n}, DType::Float16, 25);
  Tensor hh = mul(h, h);
  bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    float x = half_to_float(h.data<Half>()[i].bits);
    bad += hh.data<Half>()[i].bits != float_to_half(x * x);
  }
  EXPECT_EQ(bad, 0);
}

// --- aliasing ------------------------------------------------------------------------------------

TEST(Elementwise, OverlappingInPlaceReadsOldValues) {
  // x[1:] += x[:-1]  -> x[i] = i + (i - 1), not a running sum.
  Tensor x = iota<float>({10});
  apply_inplace("add", slice(x, 0, 1, nullopt), slice(x, 0, nullopt, -1));
  std::vector<double> want = {0};
  for (int i = 1; i < 10; ++i) want.push_back(2 * i - 1);
  EXPECT_EQ(values(x), want);
  // x[:-1] += x[1:]
  Tensor y = iota<float>({10});
  apply_inplace("add", slice(y, 0, nullopt, -1), slice(y, 0, 1, nullopt));
  want.clear();
  for (int i = 0; i < 9; ++i) want.push_back(2 * i + 1);
  want.push_back(9);
  EXPECT_EQ(values(y), want);
  // x += x[::-1] -> every element becomes 9.
  Tensor z = iota<int64_t>({10});
  apply_inplace("add", z, slice(z, 0, nullopt, nullopt, -1));
  EXPECT_EQ(values(z), std::vector<double>(10, 9.0));
  // x *= x (the very same view) squares in place.
  Tensor w = iota<double>({5});
  apply_inplace("mul", w, w);
  EXPECT_EQ(values(w), (std::vector<double>{0, 1, 4, 9, 16}));
  // m += m.T on a square matrix: symmetric result from the old values.
  Tensor m = iota<float>({3, 3});
  apply_inplace("add", m, transpose(m, 0, 1));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(at(m, {i, j}), double(3 * i + j + 3 * j + i));
}

TEST_F(ElementwiseParallel, OverlappingInPlaceLarge) {
  const int64_t n = 200003;
  Tensor x = iota<double>({n});
  apply_inplace("add", slice(x, 0, 1, nullopt), slice(x, 0, nullopt, -1));
  const double* p = x.data<double>();
  int64_t bad = p[0] != 0.0;
  for (int64_t i = 1; i < n; ++i) bad += p[i] != double(2 * i - 1);
  EXPECT_EQ(bad, 0);
  // copy_ between overlapping views of one buffer reads the old values too.
  Tensor y = iota<float>({n});
  copy_(slice(y, 0, 0, n - 1), slice(y, 0, 1, nullopt));  // shift left by one
  const float* q = y.data<float>();
  bad = 0;
  for (int64_t i = 0; i < n - 1; ++i) bad += q[i] != float(i + 1);
  EXPECT_EQ(bad, 0);
}

TEST(Elementwise, OpsFromShortLivedThreads) {
  // Each thread gets its own scratch buffers, freed when it exits (LeakSanitizer checks
  // this in the sanitizer build), and results don't depend on which thread ran them.
  Tensor a = rand_tensor({3, 50}, DType::Float32, 40), b = rand_tensor({50}, DType::Float16, 41);
  std::vector<double> want = values(add(a, b));
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { ok[size_t(t)] = values(add(a, b)) == want; });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
}

// --- type promotion ------------------------------------------------------------------------

TEST(Promotion, ResultTypeClasses) {
  auto T = [](DType d) { return Tensor::empty({2}, d); };  // a tensor with dims
  auto Z = [](DType d) { return Tensor::empty({}, d); };   // a 0-d tensor
  auto N = [](Scalar s) { return scalar_tensor(s); };      // a Python number
  Scalar f(0.5), i(int64_t(3)), b(true);
  EXPECT_EQ(result_type({T(DType::Int32), N(f)}), DType::Float32);
  EXPECT_EQ(result_type({T(DType::Int32), N(i)}), DType::Int32);
  EXPECT_EQ(result_type({T(DType::UInt8), N(i)}), DType::UInt8);
  EXPECT_EQ(result_type({T(DType::Bool), N(i)}), DType::Int64);
  EXPECT_EQ(result_type({T(DType::Bool), N(b)}), DType::Bool);
  EXPECT_EQ(result_type({T(DType::Float16), N(f)}), DType::Float16);
  EXPECT_EQ(result_type({T(DType::BFloat16), N(i)}), DType::BFloat16);
  EXPECT_EQ(result_type({T(DType::Float64), N(f)}), DType::Float64);
  // 0-d tensors rank between dimensioned tensors and numbers.
  EXPECT_EQ(result_type({T(DType::Float16), Z(DType::Float64)}), DType::Float16);
  EXPECT_EQ(result_type({T(DType::Int32), Z(DType::Float64)}), DType::Float64);
  EXPECT_EQ(result_type({T(DType::Int8), Z(DType::Int64)}), DType::Int8);
  EXPECT_EQ(result_type({Z(DType::Int32), N(f)}), DType::Float32);
  EXPECT_EQ(result_type({Z(DType::Float64), N(f)}), DType::Float64);
  EXPECT_EQ(result_type({Z(DType::Int16), Z(DType::Int64)}), DType::Int64);
  EXPECT_EQ(result_type({Z(DType::UInt8), Z(DType::Int8)}), DType::Int16);
  // Only numbers: int64 and float32 defaults.
  EXPECT_EQ(result_type({N(i), N(i)}), DType::Int64);
  EXPECT_EQ(result_type({N(i), N(f)}), DType::Float32);
  EXPECT_EQ(result_type({N(b), N(b)}), DType::Bool);
  // Tensors with dims among themselves follow promote_types.
  EXPECT_EQ(result_type({T(DType::UInt8), T(DType::Int8)}), DType::Int16);
  EXPECT_EQ(result_type({T(DType::Float16), T(DType::BFloat16)}), DType::Float32);
  EXPECT_EQ(result_type({T(DType::Int64), T(DType::Float16), N(f)}), DType::Float16);
}

TEST(Promotion, ScalarTensor) {
  Tensor f = scalar_tensor(Scalar(0.1));
  EXPECT_TRUE(f.is_wrapped_number());
  EXPECT_EQ(f.dim(), 0);
  EXPECT_EQ(f.dtype(), DType::Float64);  // keeps the Python float exactly
  EXPECT_EQ(f.item_double(), 0.1);
  EXPECT_EQ(scalar_tensor(Scalar(int64_t(5))).dtype(), DType::Int64);
  EXPECT_EQ(scalar_tensor(Scalar(false)).dtype(), DType::Bool);
  // wrap_scalar with an explicit dtype also promotes as a number.
  Tensor w = Tensor::wrap_scalar(Scalar(int64_t(2)), DType::Int64);
  Tensor r = mul(from_vec<int8_t>({100, -3}, {2}), w);
  EXPECT_EQ(r.dtype(), DType::Int8);
  EXPECT_EQ(values(r), (std::vector<double>{-56, -6}));  // int8 arithmetic wraps
  // A non-wrapped 0-d float64 doesn't widen a float32 tensor either.
  Tensor z = from_vec<double>({0.1}, {});
  EXPECT_FALSE(z.is_wrapped_number());
  Tensor x = from_vec<float>({1, 2}, {2});
  EXPECT_EQ(add(x, z).dtype(), DType::Float32);
  EXPECT_EQ(add(x, f).dtype(), DType::Float32);
  EXPECT_EQ(add(from_vec<int32_t>({1}, {1}), f).dtype(), DType::Float32);
  EXPECT_EQ(add(from_vec<int32_t>({1}, {1}), z).dtype(), DType::Float64);
}

TEST(Elementwise, SmallDenseAndScalarCallsMatchTheGeneralPath) {
  // Small dense operands, and Python numbers broadcast over a small tensor, run the kernel
  // once over the flat range; strided views of the same values take the general path. Both
  // must give the same bits, for every dtype class and for wrapped numbers of another type.
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32, DType::BFloat16, DType::Bool}) {
    Tensor wide_a = rand_tensor({7, 10}, dt, 50), wide_b = rand_tensor({7, 10}, dt, 51);
    Tensor sa = slice(wide_a, 1, 0, 10, 2), sb = slice(wide_b, 1, 1, 10, 2);  // [7, 5] strided
    ASSERT_FALSE(sa.is_contiguous());
    Tensor da = sa.contiguous(), db = sb.contiguous();
    SCOPED_TRACE(dtype_name(dt));
    EXPECT_EQ(values(mul(da, db)), values(mul(sa, sb)));
    if (dt == DType::Bool) continue;
    EXPECT_EQ(values(add(da, db)), values(add(sa, sb)));
    for (Scalar s : {Scalar(0.3), Scalar(int64_t(3)), Scalar(true)}) {
      Tensor w = scalar_tensor(s);
      EXPECT_EQ(values(add(da, w)), values(add(sa, w)));
      EXPECT_EQ(values(mul(w, da)), values(mul(w, sa)));
    }
    // A one-element tensor (not a wrapped number) of another dtype, and a 0-d condition.
    Tensor one = rand_tensor({1}, DType::Float64, 52);
    EXPECT_EQ(values(sub(da, one)), values(sub(sa, one)));
    Tensor cond = rand_tensor({}, DType::Bool, 53);
    EXPECT_EQ(values(where(cond, da, db)), values(where(cond, sa, sb)));
  }
}

TEST(Elementwise, TiledTransposesAtEverySizeClass) {
  // Transposed operands run in tiles through 16x16 (AVX-512), 8x8 (AVX) and scalar register
  // transposes: sizes around each block edge exercise every remainder path, in both tile
  // layouts (most operands transposed, or most not) and for a transposed output.
  for (int64_t rows : {16, 17, 24, 31, 33, 130}) {
    for (int64_t cols : {16, 23, 40, 129}) {
      for (DType dt : {DType::Float32, DType::Int32, DType::Float64}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " " + dtype_name(dt));
        auto round = dt == DType::Float32 ? as_f32 : as_f64;
        Tensor a = transpose(rand_tensor({cols, rows}, dt, 60), 0, 1);  // [rows, cols]
        Tensor b = transpose(rand_tensor({cols, rows}, dt, 61), 0, 1);
        Tensor y = rand_tensor({rows, cols}, dt, 62);
        EXPECT_EQ(values(add(a, b)), ref_binary(a, b, plus, round));
        EXPECT_EQ(values(add(a, y)), ref_binary(a, y, plus, round));
        EXPECT_EQ(values(mul(y, b)), ref_binary(y, b, times, round));
        Tensor out_base = rand_tensor({cols, rows}, dt, 63);
        Tensor out = transpose(out_base, 0, 1);
        std::vector<double> want = ref_binary(out, y, plus, round);
        apply_inplace("add", out, y);
        EXPECT_EQ(values(out), want);
      }
    }
  }
}
