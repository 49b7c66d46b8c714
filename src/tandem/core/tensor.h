// Tensor: a cheap handle (shared pointer) to shape, strides, offset, dtype and storage.
// Copying a Tensor copies the handle; views share storage. The operations live in
// tandem/ops/*.h as free functions (tandem::add(a, b)) and as the operators in ops.h.
#pragma once
#include <memory>

#include "tandem/core/dtype.h"
#include "tandem/core/scalar.h"
#include "tandem/core/shape.h"
#include "tandem/core/storage.h"

namespace tandem {

struct AutogradMeta;  // tandem/autograd/meta.h

struct TensorImpl {
  Shape shape;
  Strides strides;
  int64_t offset = 0;  // in elements
  DType dtype = DType::Float32;
  std::shared_ptr<Storage> storage;
  // A tensor made from a Python number: promotes like a scalar, not like a tensor.
  bool wrapped_number = false;
  // requires_grad, .grad and the node that produced it; null for plain tensors.
  std::shared_ptr<AutogradMeta> autograd;
  // Symbolic tensors (graph mode tracing) have no storage; they name value `sym_value` of
  // the graph being traced, identified by `sym_graph`.
  int64_t sym_value = -1;
  const void* sym_graph = nullptr;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A new, uninitialised dense tensor (pass the shape as an rvalue to spare a copy).
  static Tensor empty(Shape shape, DType dtype);
  // A new dense tensor laid out in memory as its operands are (PyTorch's TensorIterator
  // rule, which elementwise results follow): dims ordered innermost-first by the strides of
  // the first operand that orders them, broadcast dims skipped; plain row-major when every
  // operand is contiguous or nothing orders the dims. a.T + b.T is then a.T's layout, so its
  // kernel walks memory in order, and the result has the strides PyTorch gives it.
  static Tensor empty_following(Shape shape, DType dtype, const Tensor* const* operands, int n);
  // A view of `base`'s storage with the given geometry.
  static Tensor make_view(const Tensor& base, Shape shape, Strides strides, int64_t offset);
  // A 0-d tensor holding a Python number (promotes as a wrapped scalar).
  static Tensor wrap_scalar(Scalar s, DType dtype);

  bool defined() const { return impl_ != nullptr; }
  const Shape& shape() const { return impl_->shape; }
  const Strides& strides() const { return impl_->strides; }
  int64_t offset() const { return impl_->offset; }
  DType dtype() const { return impl_->dtype; }
  int64_t dim() const { return int64_t(impl_->shape.size()); }
  int64_t numel() const { return numel_of(impl_->shape); }
  // Size of dimension d (negative d counts from the end).
  int64_t size(int64_t d) const;
  size_t itemsize() const { return tandem::itemsize(impl_->dtype); }
  bool is_wrapped_number() const { return impl_->wrapped_number; }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_shared() const { return impl_; }
  bool same(const Tensor& o) const { return impl_ == o.impl_; }

  // Whether this tensor is a placeholder in a graph being traced (no data).
  bool is_symbolic() const { return impl_->sym_graph != nullptr; }
  // Address of element 0 (storage base + offset). Throws for symbolic tensors.
  void* data_ptr() const {
    if (!impl_->storage) [[unlikely]]
      no_data_error();
    return static_cast<char*>(impl_->storage->data()) + impl_->offset * int64_t(itemsize());
  }
  template <typename T>
  T* data() const {
    return static_cast<T*>(data_ptr());
  }
  bool is_contiguous() const;
  // Whether this tensor and `o` may touch the same bytes.
  bool shares_storage(const Tensor& o) const { return impl_->storage == o.impl_->storage; }
  // Whether the bytes the two can address intersect: same storage and overlapping ranges
  // (conservative for interleaved strides). Slices of one buffer that do not touch, such as
  // a compiled graph's arena slots, do not overlap.
  bool overlaps(const Tensor& o) const;
  // This tensor, or a dense copy when it is not contiguous.
  Tensor contiguous() const;
  // The value of a one-element tensor.
  Scalar item() const;
  // Accumulates d(this)/d(leaf) into each leaf's gradient (tandem/autograd/autograd.h);
  // gradient may be omitted for one-element tensors.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false,
                bool create_graph = false) const;
  double item_double() const { return item().to_double(); }

 private:
  [[noreturn]] void no_data_error() const;
  std::shared_ptr<TensorImpl> impl_;
};

}  // namespace tandem
