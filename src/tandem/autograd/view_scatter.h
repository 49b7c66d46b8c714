// The adjoint of view ops, shared by their vjp rules.
#pragma once
#include "tandem/ops/op_def.h"

namespace tandem {

// A tensor of base_shape that is zero except where the view (geometry relative to a dense
// base) holds `grad`.
Tensor view_scatter(const Tensor& grad, const Shape& base_shape, const Shape& view_shape,
                    const Strides& view_strides, int64_t view_offset);
// vjp for a non-overlapping view op whose view function only reads metadata (select,
// slice, diagonal, narrow) of its input's elements.
std::vector<Tensor> view_vjp(const VjpCtx& c, const std::vector<Tensor>& g);
// vjp of as_strided, which addresses storage: overlapping windows sum, positions outside
// the input get nothing, an expanded input shares (as_strided_backward).
std::vector<Tensor> as_strided_vjp(const VjpCtx& c, const std::vector<Tensor>& g);

// base with the view region (geometry relative to a dense base) replaced by value: the
// functional form of an in-place write through a view, recorded so gradients reach both.
const OpDef& view_assign_op();

}  // namespace tandem
