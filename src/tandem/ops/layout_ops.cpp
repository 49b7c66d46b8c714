// to_channel_blocked / from_channel_blocked (ops/layout.h): a permuting copy each, run by the
// elementwise copy over a strided view (its tiled transposes keep it at memory speed).
#include "tandem/core/error.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/layout.h"

namespace tandem {

Shape channel_blocked_shape(const Shape& s, int64_t L) {
  TANDEM_CHECK(s.size() == 4 && L > 0 && s[1] % L == 0, ValueError,
               "to_channel_blocked: expected an (N, C, H, W) shape with C a multiple of ", L,
               ", got ", shape_str(s));
  return {s[0], s[1] / L, s[2], s[3], L};
}

Shape channel_unblocked_shape(const Shape& s, int64_t L) {
  TANDEM_CHECK(s.size() == 5 && L > 0 && s[4] == L, ValueError,
               "from_channel_blocked: expected an (N, C/", L, ", H, W, ", L, ") shape, got ",
               shape_str(s));
  return {s[0], s[1] * L, s[2], s[3]};
}

int64_t channel_block_of(const Attrs& at, const Shape& s, const char* op) {
  const int64_t L = at.get_int_or("channel_block", 1);
  if (L == 1) return 1;
  TANDEM_CHECK(L == kChannelBlock, ValueError, op, ": channel_block must be ", kChannelBlock,
               ", got ", L);
  TANDEM_CHECK(s.size() == 5 && s[4] == L, ValueError, op,
               ": a channel-blocked activation must have shape (N, C/", L, ", H, W, ", L, "), got ",
               shape_str(s));
  return L;
}

namespace {

int64_t block_of(const Attrs& at) {
  return at.get_int("channel_block");
}

// The plain (N, C, H, W) tensor t (any strides) seen with the blocked shape
// (N, C / L, H, W, L).
Tensor plain_as_blocked(const Tensor& t, int64_t L) {
  const Shape& s = t.shape();
  const Strides& st = t.strides();
  return Tensor::make_view(t, {s[0], s[1] / L, s[2], s[3], L},
                           {st[0], st[1] * L, st[2], st[3], st[1]}, t.offset());
}

std::vector<TensorMeta> to_blocked_infer(const OpDef&, const std::vector<Tensor>& in,
                                         const Attrs& at) {
  return {{channel_blocked_shape(in[0].shape(), block_of(at)), in[0].dtype()}};
}

void to_blocked_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                       const Attrs& at) {
  copy_into(out[0], plain_as_blocked(in[0], block_of(at)));
}

std::vector<TensorMeta> from_blocked_infer(const OpDef&, const std::vector<Tensor>& in,
                                           const Attrs& at) {
  return {{channel_unblocked_shape(in[0].shape(), block_of(at)), in[0].dtype()}};
}

void from_blocked_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                         const Attrs& at) {
  copy_into(plain_as_blocked(out[0], block_of(at)), in[0]);
}

const OpDef to_blocked_op = make_op("to_channel_blocked", to_blocked_infer, to_blocked_kernel);
const OpDef from_blocked_op =
    make_op("from_channel_blocked", from_blocked_infer, from_blocked_kernel);
TANDEM_REGISTER_OP(to_blocked_op)
TANDEM_REGISTER_OP(from_blocked_op)

std::vector<Tensor> to_blocked_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {from_channel_blocked(g[0], block_of(c.attrs))};
}
std::vector<Tensor> from_blocked_vjp(const VjpCtx& c, const std::vector<Tensor>& g) {
  return {to_channel_blocked(g[0], block_of(c.attrs))};
}
TANDEM_DEFINE_VJP(to_blocked_op, to_blocked_vjp)
TANDEM_DEFINE_VJP(from_blocked_op, from_blocked_vjp)

}  // namespace

Tensor to_channel_blocked(const Tensor& x, int64_t L) {
  return dispatch1(to_blocked_op, {x}, {{"channel_block", L}});
}

Tensor from_channel_blocked(const Tensor& x, int64_t L) {
  return dispatch1(from_blocked_op, {x}, {{"channel_block", L}});
}

}  // namespace tandem
