// The one cache of oneDNN matmul primitives (gemm_matmul.cpp), shared by the bf16 and float32
// matmul entries of gemm.h and by PackedGemm (gemm_packed.h). Internal to the kernels: it
// brings in dnnl.hpp, so only their .cpp files include it.
#pragma once
#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>

namespace tandem {

struct MatmulPrimitive {
  bool usable = false;  // false: oneDNN offers only its reference kernel here
  dnnl::matmul prim;
  dnnl::memory::desc a, b, c;
};

// C[M, N] = op(A) @ op(B) (+ C when accumulate) of `type`, row strides lda, ldb, ldc (op(A) is
// A stored K x M when trans_a; op(B) is B stored N x K when trans_b). With b_any, B's layout is
// oneDNN's choice (trans_b and ldb are then ignored; `b` is the layout to reorder B into).
// One primitive per argument set and OpenMP thread count, built on first use.
const MatmulPrimitive& matmul_primitive(dnnl::memory::data_type type, bool trans_a, bool trans_b,
                                        int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb,
                                        int64_t ldc, bool accumulate, bool b_any);

}  // namespace tandem
