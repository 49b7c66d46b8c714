// Channel-blocked activations: (N, C, H, W) stored as (N, C / L, H, W, L), channel
// c = cb * L + l, which is oneDNN's nChw16c for L = 16. A compiled graph keeps the
// activations between convolutions, batch norms and elementwise ops in this layout
// (graph/passes/blocked_layout.cpp) so oneDNN reads and writes them without reorders; these
// ops convert at the region's edges. Nodes of the blocked forms carry the attribute
// channel_block = L.
#pragma once
#include "tandem/core/tensor.h"
#include "tandem/ops/attrs.h"

namespace tandem {

// The block every blocked node uses: one AVX-512 vector of float32 channels.
constexpr int64_t kChannelBlock = 16;

// (N, C, H, W) -> (N, C / L, H, W, L); C must be a multiple of L.
Shape channel_blocked_shape(const Shape& s, int64_t L);
// (N, C / L, H, W, L) -> (N, C, H, W).
Shape channel_unblocked_shape(const Shape& s, int64_t L);

// The channel block of a node of `op` reading the activation of shape s: 1 for plain nodes
// (no channel_block attribute); else kChannelBlock, the only block the kernels take, with s
// of shape (N, C / L, H, W, L). Throws ValueError for anything else.
int64_t channel_block_of(const Attrs& at, const Shape& s, const char* op);

// The copy of a 4-D (N, C, H, W) tensor in the blocked layout, and back.
Tensor to_channel_blocked(const Tensor& x, int64_t L);
Tensor from_channel_blocked(const Tensor& x, int64_t L);

}  // namespace tandem
