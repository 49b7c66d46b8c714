#include "tandem/kernels/cpu/gemm_packed.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "tandem/kernels/cpu/dnnl_engine.h"
#include "tandem/kernels/cpu/gemm.h"
#include "tandem/kernels/cpu/gemm_matmul.h"

namespace tandem {
namespace {

using dnnl::memory;
using dt = memory::data_type;

// The matmul primitive of one step's shape with B's layout left to oneDNN (format any).
const MatmulPrimitive& prim_for(int64_t M, int64_t N, int64_t K, bool accumulate) {
  return matmul_primitive(dt::f32, false, false, M, N, K, K, 0, N, accumulate, true);
}

}  // namespace

struct PackedGemm::Impl {
  memory packed;  // B in the primitive's layout (the same for both accumulate variants)
  memory::desc packed_desc;
};

PackedGemm::PackedGemm(DType dtype, bool trans_b, int64_t M, int64_t N, int64_t K, const void* B,
                       int64_t ldb)
    : dtype_(dtype), trans_b_(trans_b), M_(M), N_(N), K_(K), ldb_(ldb), B_(B) {
  if (dtype != DType::Float32 || M == 0 || N == 0 || K == 0) return;
  // Both variants of a shape must agree on B's layout for one packed copy to serve them.
  const MatmulPrimitive& p0 = prim_for(M, N, K, false);
  const MatmulPrimitive& p1 = prim_for(M, N, K, true);
  if (!p0.usable || !p1.usable || p0.b != p1.b) return;
  try {
    memory::desc src_desc({K, N}, dt::f32, trans_b ? memory::dims{1, ldb} : memory::dims{ldb, 1});
    memory src(src_desc, dnnl_engine(), const_cast<void*>(B));
    auto impl = std::make_unique<Impl>();
    impl->packed_desc = p0.b;
    impl->packed = memory(p0.b, dnnl_engine());
    dnnl::stream s(dnnl_engine());
    dnnl::reorder(src, impl->packed).execute(s, src, impl->packed);
    s.wait();
    impl_ = std::move(impl);
  } catch (const dnnl::error&) {
    impl_.reset();
  }
}

PackedGemm::~PackedGemm() = default;

void PackedGemm::run(const void* A, int64_t lda, void* C, int64_t ldc, bool accumulate) const {
  if (M_ == 0 || N_ == 0) return;
  if (!impl_ || lda != K_ || ldc != N_) {
    gemm(dtype_, false, trans_b_, M_, N_, K_, 1.0, A, lda, B_, ldb_, accumulate ? 1.0 : 0.0, C,
         ldc);
    return;
  }
  const MatmulPrimitive& p = prim_for(M_, N_, K_, accumulate);
  if (!p.usable || p.b != impl_->packed_desc) {  // the thread count changed the layout
    gemm(dtype_, false, trans_b_, M_, N_, K_, 1.0, A, lda, B_, ldb_, accumulate ? 1.0 : 0.0, C,
         ldc);
    return;
  }
  dnnl::stream s(dnnl_engine());
  memory am(p.a, dnnl_engine(), const_cast<void*>(A));
  memory cm(p.c, dnnl_engine(), C);
  p.prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, impl_->packed}, {DNNL_ARG_DST, cm}});
  s.wait();
}

}  // namespace tandem
