#include "tandem/core/tensor.h"

#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"

namespace tandem {

namespace {
// [first, last + 1) byte offsets within the storage that t can address.
std::pair<int64_t, int64_t> byte_extent(const Tensor& t) {
  int64_t lo = t.offset(), hi = t.offset();
  for (size_t d = 0; d < t.shape().size(); ++d) {
    int64_t span = (t.shape()[d] - 1) * t.strides()[d];
    (span < 0 ? lo : hi) += span;
  }
  const int64_t isz = int64_t(itemsize(t.dtype()));
  return {lo * isz, (hi + 1) * isz};
}
}  // namespace

bool Tensor::overlaps(const Tensor& o) const {
  if (!impl_->storage || !shares_storage(o) || numel() == 0 || o.numel() == 0) return false;
  auto [a0, a1] = byte_extent(*this);
  auto [b0, b1] = byte_extent(o);
  return a0 < b1 && b0 < a1;
}

Tensor Tensor::empty(Shape shape, DType dtype) {
  check_ndim(shape, "empty");
  bool has_zero = false;
  for (int64_t d : shape) {
    TANDEM_CHECK(d >= 0, ValueError, "empty: negative dimension in shape ", shape_str(shape));
    has_zero |= d == 0;
  }
  // The size in bytes must fit in int64: an overflow would be UB and allocate a small block.
  int64_t nbytes = has_zero ? 0 : int64_t(tandem::itemsize(dtype));
  for (int64_t d : shape)
    TANDEM_CHECK(!__builtin_mul_overflow(nbytes, d, &nbytes), ValueError, "empty: shape ",
                 shape_str(shape), " of ", dtype_name(dtype), " is too large to allocate");
  auto impl = std::make_shared<TensorImpl>();
  impl->strides = contiguous_strides(shape);
  impl->shape = std::move(shape);
  impl->dtype = dtype;
  impl->storage = Storage::allocate(size_t(nbytes));
  return Tensor(std::move(impl));
}

namespace {

// Operand k's stride along dim d of `shape`, 0 where it broadcasts (absent or size 1).
int64_t operand_stride(const Tensor& t, const Shape& shape, size_t d) {
  size_t off = shape.size() - size_t(t.dim());
  if (d < off || t.shape()[d - off] == 1) return 0;
  int64_t s = t.strides()[d - off];
  return s < 0 ? -s : s;  // a reversed view's dim orders by its distance
}

}  // namespace

Tensor Tensor::empty_following(Shape shape, DType dtype, const Tensor* const* operands, int n) {
  bool all_contiguous = true;
  for (int k = 0; k < n && all_contiguous; ++k)
    all_contiguous = operands[k]->dim() == 0 || operands[k]->is_contiguous();
  const size_t nd = shape.size();
  if (all_contiguous || nd < 2) return empty(std::move(shape), dtype);
  // > 0: dim a belongs inside dim b; < 0: outside; 0: no operand tells. The first operand
  // with distinct, non-zero strides decides; equal strides put the smaller dim inside.
  auto order = [&](size_t a, size_t b) {
    for (int k = 0; k < n; ++k) {
      int64_t sa = operand_stride(*operands[k], shape, a);
      int64_t sb = operand_stride(*operands[k], shape, b);
      if (sa == 0 || sb == 0) continue;
      if (sa != sb) return sa < sb ? 1 : -1;
      if (shape[a] < shape[b]) return 1;
    }
    return 0;
  };
  // perm[0] is the innermost dim. Insertion sort that stops at the first dim known to be
  // outside (ambiguous pairs keep their row-major order), starting from row-major.
  int64_t perm[kMaxDims];
  for (size_t i = 0; i < nd; ++i) perm[i] = int64_t(nd - 1 - i);
  for (size_t i = 1; i < nd; ++i) {
    size_t cur = i;
    for (size_t j = i; j-- > 0;) {
      int c = order(size_t(perm[cur]), size_t(perm[j]));
      if (c > 0) {
        std::swap(perm[cur], perm[j]);
        cur = j;
      } else if (c < 0) {
        break;
      }
    }
  }
  bool row_major = true;
  for (size_t i = 0; i < nd && row_major; ++i) row_major = perm[i] == int64_t(nd - 1 - i);
  if (row_major) return empty(std::move(shape), dtype);
  Strides strides(nd);
  int64_t acc = 1;
  for (size_t i = 0; i < nd; ++i) {
    strides[size_t(perm[i])] = acc;
    acc *= shape[size_t(perm[i])] > 1 ? shape[size_t(perm[i])] : 1;
  }
  Tensor t = empty(std::move(shape), dtype);
  t.impl_->strides = std::move(strides);
  return t;
}

Tensor Tensor::make_view(const Tensor& base, Shape shape, Strides strides, int64_t offset) {
  check_ndim(shape, "view");
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = base.dtype();
  impl->storage = base.storage();
  return Tensor(std::move(impl));
}

Tensor Tensor::wrap_scalar(Scalar s, DType dtype) {
  Tensor t = empty({}, dtype);
  t.impl()->wrapped_number = true;
  char* p = static_cast<char*>(t.data_ptr());
  switch (s.kind()) {
    case Scalar::Kind::Float: {
      double v = s.to_double();
      convert_strided(reinterpret_cast<const char*>(&v), 8, DType::Float64, p, 8, dtype, 1);
      break;
    }
    case Scalar::Kind::Bool: {
      bool v = s.to_int() != 0;
      convert_strided(reinterpret_cast<const char*>(&v), 1, DType::Bool, p, 1, dtype, 1);
      break;
    }
    default: {
      int64_t v = s.to_int();
      convert_strided(reinterpret_cast<const char*>(&v), 8, DType::Int64, p, 8, dtype, 1);
    }
  }
  return t;
}

void Tensor::no_data_error() const {
  if (is_symbolic())
    throw_error<Error>(
        "this tensor is symbolic (inside a jit-compiled function, tensors have a shape and "
        "dtype but no values yet), so its data can't be read: avoid .item(), .numpy(), "
        "print() and Python conditions on tensors inside jit; use mint.where, mark the "
        "argument static (static_argnums), or keep that code outside jit");
  throw_error<Error>("tensor has no storage");
}

int64_t Tensor::size(int64_t d) const {
  // wrap_dim lets a 0-d tensor take dim 0 / -1 (for reductions); size() has nothing to read.
  TANDEM_CHECK(dim() > 0, IndexError, "size: dimension specified as ", d,
               " but tensor has no dimensions");
  return shape()[wrap_dim(d, dim(), "size")];
}

bool Tensor::is_contiguous() const {
  if (numel() == 0) return true;  // no element has an address to be out of place
  int64_t expected = 1;
  const Shape& s = shape();
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == 1) continue;
    if (strides()[i] != expected) return false;
    expected *= s[i];
  }
  return true;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Tensor out = empty(shape(), dtype());
  copy_into(out, *this);
  return out;
}

Scalar Tensor::item() const {
  TANDEM_CHECK(numel() == 1, ValueError, "item: a Tensor with ", numel(),
               " elements cannot be converted to a scalar; only one-element tensors can");
  const char* p = static_cast<const char*>(data_ptr());
  if (is_floating(dtype())) {
    double v;
    convert_strided(p, 0, dtype(), reinterpret_cast<char*>(&v), 8, DType::Float64, 1);
    return Scalar(v);
  }
  if (dtype() == DType::Bool) return Scalar(*reinterpret_cast<const bool*>(p));
  int64_t v;
  convert_strided(p, 0, dtype(), reinterpret_cast<char*>(&v), 8, DType::Int64, 1);
  return Scalar(v);
}

}  // namespace tandem
