// The total order the sorting, selection and counting kernels share: PyTorch's, with NaN
// above every number and all NaNs tied; ties broken by index for determinism.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace tandem {

template <typename T>
inline bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  return false;
}

// a < b with NaN ordered last (a strict weak order even when NaNs are present).
template <typename T>
inline bool order_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return a < b || (b != b && a == a);
  return a < b;
}

template <typename T>
struct Keyed {
  T v;
  int64_t i;
};

template <typename T>
struct KeyedAsc {
  bool operator()(const Keyed<T>& a, const Keyed<T>& b) const {
    if (order_less(a.v, b.v)) return true;
    if (order_less(b.v, a.v)) return false;
    return a.i < b.i;
  }
};

// Descending by value; equal values still ascending by index (a stable descending sort).
template <typename T>
struct KeyedDesc {
  bool operator()(const Keyed<T>& a, const Keyed<T>& b) const {
    if (order_less(b.v, a.v)) return true;
    if (order_less(a.v, b.v)) return false;
    return a.i < b.i;
  }
};

// --- radix sort ------------------------------------------------------------------------------
// An unsigned key whose integer order is the order above: NaNs share the largest key and -0.0
// maps to +0.0, so the keys tie exactly where the comparisons do.
template <typename T>
using RadixKey =
    std::conditional_t<sizeof(T) == 1, uint8_t,
                       std::conditional_t<sizeof(T) == 2, uint16_t,
                                          std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

template <typename T>
inline RadixKey<T> radix_key(T v) {
  using K = RadixKey<T>;
  constexpr K kSign = K(K(1) << (8 * sizeof(K) - 1));
  if constexpr (std::is_same_v<T, bool>) {
    return K(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (v != v) return std::numeric_limits<K>::max();
    if (v == T(0)) v = T(0);
    K u;
    std::memcpy(&u, &v, sizeof(u));
    return (u & kSign) ? K(~u) : K(u | kSign);
  } else if constexpr (std::is_signed_v<T>) {
    return K(K(v) ^ kSign);
  } else {
    return K(v);
  }
}

// Per-thread buffers for radix_argsort.
template <typename K>
struct RadixScratch {
  std::vector<K> keys, ktmp;
  std::vector<int64_t> idx, itmp;
  explicit RadixScratch(int64_t n)
      : keys(size_t(n)), ktmp(size_t(n)), idx(size_t(n)), itmp(size_t(n)) {}
};

// Stable LSD radix argsort of x[0..n) into s.idx (descending inverts the keys, so equal values
// still keep index order). O(n) per byte; bytes that are equal across the row are skipped.
template <typename T>
void radix_argsort(const T* x, int64_t n, bool descending, RadixScratch<RadixKey<T>>& s) {
  using K = RadixKey<T>;
  constexpr int kBytes = int(sizeof(K));
  K* keys = s.keys.data();
  K* ktmp = s.ktmp.data();
  int64_t* idx = s.idx.data();
  int64_t* itmp = s.itmp.data();
  std::vector<std::array<int64_t, 256>> hist(kBytes);
  for (auto& h : hist) h.fill(0);
  for (int64_t i = 0; i < n; ++i) {
    K k = radix_key(x[i]);
    if (descending) k = K(~k);
    keys[i] = k;
    idx[i] = i;
    for (int b = 0; b < kBytes; ++b) ++hist[size_t(b)][(k >> (8 * b)) & 0xff];
  }
  for (int b = 0; b < kBytes; ++b) {
    auto& h = hist[size_t(b)];
    if (n == 0 || h[(keys[0] >> (8 * b)) & 0xff] == n) continue;  // one bucket: nothing moves
    int64_t sum = 0;
    for (auto& c : h) {
      int64_t t = c;
      c = sum;
      sum += t;
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t dst = h[(keys[i] >> (8 * b)) & 0xff]++;
      ktmp[dst] = keys[i];
      itmp[dst] = idx[i];
    }
    std::swap(keys, ktmp);
    std::swap(idx, itmp);
  }
  if (idx != s.idx.data()) std::memcpy(s.idx.data(), idx, size_t(n) * sizeof(int64_t));
}

}  // namespace tandem
