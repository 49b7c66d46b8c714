// Helpers shared by the C++ tests. Values are read back by walking shape/strides directly
// (not through the library's copy kernels), so a test of a view or a kernel does not depend
// on the code it checks.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tandem/core/dtype.h"
#include "tandem/core/error.h"
#include "tandem/core/tensor.h"

namespace tandem::testing {

// A dense tensor of dtype_of<T> holding `v` in row-major order.
template <typename T>
Tensor from_vec(const std::vector<T>& v, const Shape& shape) {
  EXPECT_EQ(int64_t(v.size()), numel_of(shape));
  Tensor t = Tensor::empty(shape, dtype_of<T>::value);
  T* p = t.data<T>();
  for (size_t i = 0; i < v.size(); ++i) p[i] = v[i];
  return t;
}
// Specialisation for bool: std::vector<bool> is bit-packed.
inline Tensor from_bools(const std::vector<int>& v, const Shape& shape) {
  Tensor t = Tensor::empty(shape, DType::Bool);
  bool* p = t.data<bool>();
  for (size_t i = 0; i < v.size(); ++i) p[i] = v[i] != 0;
  return t;
}

// 0, 1, 2, ... as dtype T.
template <typename T = float>
Tensor iota(const Shape& shape) {
  std::vector<T> v(size_t(numel_of(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = T(i);
  return from_vec(v, shape);
}

// Uniform random values in [lo, hi), reproducible.
inline std::vector<double> random_values(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// One element at storage position `pos` (in elements, from the storage base) as a double.
inline double read_at(const Tensor& t, int64_t pos) {
  const char* base = static_cast<const char*>(t.storage()->data()) + pos * int64_t(t.itemsize());
  switch (t.dtype()) {
    case DType::Bool:
      return *reinterpret_cast<const bool*>(base) ? 1.0 : 0.0;
    case DType::UInt8:
      return *reinterpret_cast<const uint8_t*>(base);
    case DType::Int8:
      return *reinterpret_cast<const int8_t*>(base);
    case DType::Int16:
      return *reinterpret_cast<const int16_t*>(base);
    case DType::Int32:
      return *reinterpret_cast<const int32_t*>(base);
    case DType::Int64:
      return double(*reinterpret_cast<const int64_t*>(base));
    case DType::Float16: {
      uint16_t b;
      std::memcpy(&b, base, 2);
      return half_to_float(b);
    }
    case DType::BFloat16: {
      uint16_t b;
      std::memcpy(&b, base, 2);
      return bf16_to_float(b);
    }
    case DType::Float32:
      return *reinterpret_cast<const float*>(base);
    case DType::Float64:
      return *reinterpret_cast<const double*>(base);
  }
  return NAN;
}

// Storage positions of every element in row-major order of t's shape.
inline std::vector<int64_t> positions(const Tensor& t) {
  std::vector<int64_t> out;
  int64_t n = t.numel();
  if (n == 0) return out;
  out.reserve(size_t(n));
  std::vector<int64_t> idx(size_t(t.dim()), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t pos = t.offset();
    for (int64_t d = 0; d < t.dim(); ++d) pos += idx[d] * t.strides()[d];
    out.push_back(pos);
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++idx[d] < t.shape()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// All elements as doubles in row-major order.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t p : positions(t)) out.push_back(read_at(t, p));
  return out;
}

// Element at a multi-index.
inline double at(const Tensor& t, const std::vector<int64_t>& idx) {
  EXPECT_EQ(int64_t(idx.size()), t.dim());
  int64_t pos = t.offset();
  for (size_t d = 0; d < idx.size(); ++d) pos += idx[d] * t.strides()[d];
  return read_at(t, pos);
}

// Row-major multi-index of linear index k in `shape`.
inline std::vector<int64_t> unravel(int64_t k, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = k % shape[d];
    k /= shape[d];
  }
  return idx;
}

// Element-by-element comparison with a relative + absolute tolerance; NaN equals NaN.
inline ::testing::AssertionResult all_close(const std::vector<double>& got,
                                            const std::vector<double>& want, double rtol = 1e-6,
                                            double atol = 1e-9) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    if (std::isnan(g) && std::isnan(w)) continue;
    if (g == w) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w)))
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << g << ", expected " << w;
  }
  return ::testing::AssertionSuccess();
}

// Expects `f` to throw E whose message contains every string in `parts`.
template <typename E, typename F>
::testing::AssertionResult throws_with(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const E& e) {
    std::string msg = e.what();
    for (const auto& p : parts)
      if (msg.find(p) == std::string::npos)
        return ::testing::AssertionFailure()
               << "message \"" << msg << "\" does not contain \"" << p << "\"";
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a different exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace tandem::testing
