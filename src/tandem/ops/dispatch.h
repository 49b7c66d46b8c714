// dispatch: the one entry every op call goes through (binding -> op function -> dispatch
// -> kernel). It runs infer, allocates outputs and runs the kernel (or builds the view).
#pragma once
#include <vector>

#include "tandem/ops/op_def.h"

namespace tandem {

std::vector<Tensor> dispatch(const OpDef& op, const std::vector<Tensor>& inputs,
                             const Attrs& attrs = {});
// Runs the op now (view or kernel) with no tracing and no autograd: what the graph executor
// calls for each node.
std::vector<Tensor> execute(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs);
// Single-output form.
Tensor dispatch1(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs = {});
// dispatch1 of one or two operands. An op with an eager function (OpDef::eager), called with
// nothing tracing, no autocast and nothing for autograd to record, runs without building
// vectors (most of an eager one-element op's cost was allocation); other calls go through
// dispatch1.
Tensor dispatch_unary(const OpDef& op, const Tensor& x);
Tensor dispatch_binary(const OpDef& op, const Tensor& a, const Tensor& b);
// Writes the single output into `out` (in-place ops and out= arguments). The result shape
// must equal out's shape and its dtype must be castable to out's dtype.
// Expanded views may not be written (one location would get several results), except by a
// fill (attribute "fill": one value everywhere), as in PyTorch.
void dispatch_out(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                  const Tensor& out);
// Whether some element of t is reached by two index tuples (a dim of size > 1, stride 0).
bool has_internal_overlap(const Tensor& t);
// Raises naming `op` when `out` has internal overlap (an in-place write would be ambiguous).
void check_no_internal_overlap(const Tensor& out, const std::string& op);

}  // namespace tandem
