// Matrix multiplies on oneDNN's matmul primitive, one cached primitive per shape, layout and
// thread count (gemm_matmul.h; PackedGemm's come from the same cache):
// - bfloat16 (gemm_bf16): bf16 inputs, float32 accumulation, a bf16 output (what autocast's
//   matmul/linear return). On CPUs with AVX512_BF16 oneDNN uses the dot-product
//   instructions; where it would fall back to its reference kernel the caller converts to
//   float32 instead (gemm_bf16 returns false).
// - float32 with B transposed (gemm_f32_matmul, chosen by gemm()): a Linear layer's x W^T.
//   oneDNN's sgemm runs these 15-30 % slower than its matmul kernel at the sizes of D2L's
//   MLP and LeNet layers (benchmarks/kernels.py, linear rows).
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/dnnl_engine.h"
#include "tandem/kernels/cpu/gemm.h"
#include "tandem/kernels/cpu/gemm_matmul.h"

namespace tandem {
namespace {

using dnnl::memory;
using dt = memory::data_type;

dnnl::engine& engine() {
  return dnnl_engine();
}

memory::desc desc2(int64_t rows, int64_t cols, int64_t ld, bool trans, dt type) {
  // A logical rows x cols matrix stored row-major with row stride ld, or (trans) stored
  // cols x rows and read transposed.
  memory::dims strides = trans ? memory::dims{1, ld} : memory::dims{ld, 1};
  return memory::desc({rows, cols}, type, strides);
}

}  // namespace

const MatmulPrimitive& matmul_primitive(dt type, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
                                        int64_t lda, int64_t ldb, int64_t ldc, bool accumulate,
                                        bool b_any) {
  static std::mutex mu;
  static auto* cache = new std::unordered_map<std::string, std::unique_ptr<MatmulPrimitive>>();
  threads::available();  // samples the load now and then (threads.h)
  if (b_any) tb = false, ldb = 0;
  std::string key = std::to_string(int(type)) + std::to_string(ta) + std::to_string(tb) +
                    std::to_string(accumulate) + std::to_string(b_any) + "," + std::to_string(M) +
                    "," + std::to_string(N) + "," + std::to_string(K) + "," + std::to_string(lda) +
                    "," + std::to_string(ldb) + "," + std::to_string(ldc) + "|t" +
                    std::to_string(omp_get_max_threads());
  std::lock_guard<std::mutex> g(mu);
  auto& slot = (*cache)[key];
  if (slot) return *slot;
  auto e = std::make_unique<MatmulPrimitive>();
  e->a = desc2(M, K, lda, ta, type);
  e->b = b_any ? memory::desc({K, N}, type, memory::format_tag::any) : desc2(K, N, ldb, tb, type);
  e->c = desc2(M, N, ldc, false, type);
  try {
    dnnl::primitive_attr attr;
    if (accumulate) {  // C += A B
      dnnl::post_ops ops;
      ops.append_sum(1.f);
      attr.set_post_ops(ops);
    }
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(e->a, e->b, e->c), attr, engine());
    std::string impl = pd.impl_info_str();
    e->usable = impl.find("ref") == std::string::npos;
    if (e->usable) {
      if (b_any) e->b = pd.weights_desc();
      e->prim = dnnl::matmul(pd);
    }
  } catch (const dnnl::error&) {
    e->usable = false;
  }
  slot = std::move(e);
  return *slot;
}

namespace {

bool run(dt type, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void* A, int64_t lda,
         const void* B, int64_t ldb, void* C, int64_t ldc, bool accumulate) {
  const MatmulPrimitive& e =
      matmul_primitive(type, ta, tb, M, N, K, std::max<int64_t>(lda, 1), std::max<int64_t>(ldb, 1),
                       std::max<int64_t>(ldc, 1), accumulate, false);
  if (!e.usable) return false;
  dnnl::stream s(engine());
  memory am(e.a, engine(), const_cast<void*>(A));
  memory bm(e.b, engine(), const_cast<void*>(B));
  memory cm(e.c, engine(), C);
  e.prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  s.wait();
  return true;
}

}  // namespace

bool gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void* A, int64_t lda,
               const void* B, int64_t ldb, void* C, int64_t ldc) {
  if (M == 0 || N == 0) return true;
  if (K == 0) return false;  // the caller's float32 path writes the zeros
  return run(dt::bf16, ta, tb, M, N, K, A, lda, B, ldb, C, ldc, false);
}

bool gemm_f32_matmul(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void* A, int64_t lda,
                     const void* B, int64_t ldb, bool accumulate, void* C, int64_t ldc) {
  if (M == 0 || N == 0) return true;
  if (K == 0) return false;
  return run(dt::f32, ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

}  // namespace tandem
