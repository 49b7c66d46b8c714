#include "tandem/kernels/cpu/gemm_packed.h"
#include "tandem/core/threads.h"

#include <omp.h>

#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>

#include "tandem/kernels/cpu/dnnl_engine.h"
#include "tandem/kernels/cpu/gemm.h"

namespace tandem {
namespace {

using dnnl::memory;
using dt = memory::data_type;

dnnl::engine& engine() {
  return dnnl_engine();
}

// One matmul primitive per shape, thread count and accumulate flag, with B's layout left
// to oneDNN (format any); built once, reused by every layer call of that shape.
struct Prim {
  bool usable = false;  // false: only oneDNN's reference kernel serves this shape
  dnnl::matmul prim;
  memory::desc a, b_any, c;
};

Prim& prim_for(int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldc, bool accumulate) {
  static std::mutex mu;
  static auto* cache = new std::unordered_map<std::string, std::unique_ptr<Prim>>();
  threads::available();  // samples the load now and then (threads.h)
  const std::string key = std::to_string(M) + "," + std::to_string(N) + "," + std::to_string(K) +
                          "," + std::to_string(lda) + "," + std::to_string(ldc) + "," +
                          std::to_string(accumulate) + "|t" + std::to_string(omp_get_max_threads());
  std::lock_guard<std::mutex> g(mu);
  auto& slot = (*cache)[key];
  if (slot) return *slot;
  auto p = std::make_unique<Prim>();
  p->a = memory::desc({M, K}, dt::f32, memory::dims{lda, 1});
  p->b_any = memory::desc({K, N}, dt::f32, memory::format_tag::any);
  p->c = memory::desc({M, N}, dt::f32, memory::dims{ldc, 1});
  try {
    dnnl::primitive_attr attr;
    if (accumulate) {
      dnnl::post_ops ops;
      ops.append_sum(1.f);
      attr.set_post_ops(ops);
    }
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a, p->b_any, p->c), attr, engine());
    p->usable = std::string(pd.impl_info_str()).find("ref") == std::string::npos;
    if (p->usable) {
      p->b_any = pd.weights_desc();
      p->prim = dnnl::matmul(pd);
    }
  } catch (const dnnl::error&) {
    p->usable = false;
  }
  slot = std::move(p);
  return *slot;
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
  Prim& p0 = prim_for(M, N, K, K, N, false);
  Prim& p1 = prim_for(M, N, K, K, N, true);
  if (!p0.usable || !p1.usable || p0.b_any != p1.b_any) return;
  try {
    memory::desc src_desc({K, N}, dt::f32, trans_b ? memory::dims{1, ldb} : memory::dims{ldb, 1});
    memory src(src_desc, engine(), const_cast<void*>(B));
    auto impl = std::make_unique<Impl>();
    impl->packed_desc = p0.b_any;
    impl->packed = memory(p0.b_any, engine());
    dnnl::stream s(engine());
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
  Prim& p = prim_for(M_, N_, K_, K_, N_, accumulate);
  if (!p.usable || p.b_any != impl_->packed_desc) {  // the thread count changed the layout
    gemm(dtype_, false, trans_b_, M_, N_, K_, 1.0, A, lda, B_, ldb_, accumulate ? 1.0 : 0.0, C,
         ldc);
    return;
  }
  dnnl::stream s(engine());
  memory am(p.a, engine(), const_cast<void*>(A));
  memory cm(p.c, engine(), C);
  p.prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, impl_->packed}, {DNNL_ARG_DST, cm}});
  s.wait();
}

}  // namespace tandem
