#include "tandem/core/shape.h"

#include "tandem/core/error.h"

namespace tandem {

int64_t numel_of(const Shape& s) {
  // A zero anywhere wins, so huge sizes next to a 0 can't overflow the product first.
  for (int64_t d : s)
    if (d == 0) return 0;
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Strides contiguous_strides(const Shape& s) {
  Strides st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    // Wrapping multiply: only a shape with a 0 elsewhere (no elements, so its strides are
    // never used) can overflow here; Tensor::empty rejects larger non-empty shapes.
    acc = int64_t(uint64_t(acc) * uint64_t(s[i] > 1 ? s[i] : 1));
  }
  return st;
}

void check_ndim(const Shape& s, const char* op) {
  TANDEM_CHECK(s.size() <= kMaxDims, ValueError, op, ": a tensor can have at most ", kMaxDims,
               " dims (numpy's limit), got ", s.size());
}

void check_sizes(const Shape& s, const char* op) {
  check_ndim(s, op);
  for (int64_t d : s)
    TANDEM_CHECK(d >= 0, ValueError, op, ": negative dimension ", d, " in size ", shape_str(s));
}

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + "]";
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  if (a == b) return a;
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw_error<ValueError>(op, ": shapes ", shape_str(a), " and ", shape_str(b),
                              " cannot be broadcast: dimension ", i, " is ", da, " vs ", db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  if (ndim == 0)
    throw_error<IndexError>(op, ": dimension specified as ", dim,
                            " but the tensor has no dimensions (it is 0-d)");
  if (dim < -ndim || dim >= ndim)
    throw_error<IndexError>(op, ": dimension out of range (expected to be in range of [", -ndim,
                            ", ", ndim - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + ndim : dim;
}

int64_t wrap_dim_scalar(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a 0-d tensor accepts dim 0 and -1, like PyTorch
  if (dim < -n || dim >= n)
    throw_error<IndexError>(op, ": dimension out of range (expected to be in range of [", -n, ", ",
                            n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

Strides broadcast_strides(const Shape& from, const Strides& strides, const Shape& to) {
  Strides out(to.size(), 0);
  size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) out[off + i] = from[i] == 1 ? 0 : strides[i];
  return out;
}

}  // namespace tandem
