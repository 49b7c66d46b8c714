// Shape ops. The first group returns views that share storage with the input (writes
// through a view update the base); the second group copies.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

// --- views ---------------------------------------------------------------------------------
// A view when strides allow, else a copy; one dim may be -1.
Tensor reshape(const Tensor& x, const Shape& shape);
// Always a view; throws when the strides don't allow it (PyTorch's view()).
Tensor view(const Tensor& x, const Shape& shape);
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
// 2-D transpose; 0-d and 1-d tensors are returned as they are.
Tensor t(const Tensor& x);
// Removes size-1 dims (all of them, or those listed).
Tensor squeeze(const Tensor& x, std::optional<std::vector<int64_t>> dims = std::nullopt);
Tensor unsqueeze(const Tensor& x, int64_t dim);
// Broadcast view; -1 keeps a dim's size.
Tensor expand(const Tensor& x, const Shape& shape);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
// x[start:stop:step] along dim (numpy semantics: clamped bounds, negative step allowed).
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step = 1);
// x[index] along dim; removes the dim.
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& x, int64_t dim, const Shape& sizes);
// A view with arbitrary geometry over x's storage (used by indexing and unfold).
Tensor as_strided(const Tensor& x, const Shape& shape, const Strides& strides, int64_t offset);
// Views of equal pieces (the last may be smaller) / given sizes along dim.
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_sizes(const Tensor& x, const std::vector<int64_t>& sizes,
                                int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0);

// --- copies ----------------------------------------------------------------------------------
Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& xs, int64_t dim = 0);
Tensor hstack(const std::vector<Tensor>& xs);
Tensor vstack(const std::vector<Tensor>& xs);
Tensor flip(const Tensor& x, const std::vector<int64_t>& dims);
Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims);
// PyTorch's repeat: tile the whole tensor `repeats` times per dim.
Tensor repeat(const Tensor& x, const std::vector<int64_t>& repeats);
// numpy's tile: like repeat, with fewer reps padded with leading ones.
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);
// Repeats each element `repeats` times along dim (flattened when dim is empty).
Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> dim);
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> dim);
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
// 1-D -> square matrix with x on a diagonal; 2-D -> that diagonal as 1-D.
Tensor diag(const Tensor& x, int64_t diagonal = 0);
// mode: "constant" (negative pads crop), "reflect", "replicate" or "circular"; pad lists
// (left, right) pairs from the last dim, as torch.nn.functional.pad.
Tensor pad(const Tensor& x, const std::vector<int64_t>& pad, const std::string& mode = "constant",
           double value = 0);

}  // namespace tandem
