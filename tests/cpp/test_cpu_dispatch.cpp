// The AVX-512 forms of a portable build (kernels/cpu/avx512_kernels.h): every elementwise
// op with a SIMD form has one, each names a real op, and each computes what the op means
// (float32 against float64, and the fused compiler's 16-lane form against the loop).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tandem/kernels/cpu/avx512_kernels.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/kernels/cpu/rnn_rows.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/op_def.h"

namespace tandem {
namespace {

bool has_avx512_forms() {
  return avx512_ew_table_count() > 0;
}

std::vector<const OpDef*> elementwise_ops() {
  std::vector<const OpDef*> out;
  for (const OpDef* op : all_ops())
    if (op->kernel == ew_kernel) out.push_back(op);
  return out;
}

TEST(CpuDispatch, CapabilityMatchesTheChoice) {
  const std::string cap = cpu_capability();
  EXPECT_TRUE(cap == "AVX512" || cap == "AVX2") << cap;
  EXPECT_EQ(cap == "AVX512", cpu_use_avx512());
  const std::string isa = build_isa();
  EXPECT_TRUE(isa == "x86-64-v3" || isa == "native") << isa;
}

TEST(CpuDispatch, EveryOpWithASimdFormHasAnAvx512Form) {
  if (!has_avx512_forms())
    GTEST_SKIP() << "no AVX-512 forms here (CPU, TANDEM_ISA or -march=native)";
  int checked = 0;
  for (const OpDef* op : elementwise_ops()) {
    const auto* info = static_cast<const EwInfo*>(op->data);
    if (!info->table.vec32) continue;  // no SIMD form: the baseline loops serve every CPU
    ++checked;
    const EwFnTable* fast = avx512_ew_table(op->name.c_str());
    ASSERT_NE(fast, nullptr) << op->name << " has a SIMD form but no AVX-512 table: add it to "
                             << "avx512_kernels.cpp's entries()";
    // The op runs the AVX-512 kernels (make_ew_op put them in its table).
    EXPECT_EQ(info->table.fn[int(DType::Float32)], fast->fn[int(DType::Float32)]) << op->name;
    EXPECT_EQ(info->table.vec32, fast->vec32) << op->name;
  }
  EXPECT_EQ(checked, avx512_ew_table_count());
}

TEST(CpuDispatch, EveryAvx512FormNamesAnElementwiseOp) {
  if (!has_avx512_forms()) GTEST_SKIP() << "no AVX-512 forms here";
  for (int i = 0; i < avx512_ew_table_count(); ++i) {
    const char* name = avx512_ew_table_name(i);
    const OpDef* op = find_op(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->kernel, ew_kernel) << name;
  }
}

// Each AVX-512 float32 kernel against its float64 kernel on 37 elements (two full
// 16-lane vectors and a partial one), inputs where every op is defined but acosh (NaN in
// both), and the 16-lane vector form against the loop.
TEST(CpuDispatch, Avx512FormsComputeTheirOps) {
  if (!has_avx512_forms()) GTEST_SKIP() << "no AVX-512 forms here";
  constexpr int n = 37;
  std::vector<float> a32(n), b32(n);
  std::vector<double> a64(n), b64(n);
  for (int i = 0; i < n; ++i) {
    a64[i] = 0.1 + 0.8 * i / (n - 1);        // (0, 1): asin, atanh, log, ... all defined
    b64[i] = 0.5 + 1.5 * ((i * 7) % n) / n;  // [0.5, 2): divisors and exponents
    a32[i] = float(a64[i]), b32[i] = float(b64[i]);
  }
  const double params[3] = {0.25, 0.75, 1.0};  // clamp bounds, slopes, beta/threshold
  for (int e = 0; e < avx512_ew_table_count(); ++e) {
    const char* name = avx512_ew_table_name(e);
    const EwFnTable* t = avx512_ew_table(name);
    ASSERT_NE(t, nullptr);
    std::vector<float> o32(n);
    std::vector<double> o64(n);
    const void* in32[2] = {a32.data(), b32.data()};
    const void* in64[2] = {a64.data(), b64.data()};
    t->fn[int(DType::Float32)](n, o32.data(), in32, params);
    t->fn[int(DType::Float64)](n, o64.data(), in64, params);
    for (int i = 0; i < n; ++i) {
      if (std::isnan(o64[i])) {
        EXPECT_TRUE(std::isnan(o32[i])) << name << " [" << i << "]";
        continue;
      }
      EXPECT_NEAR(o32[i], o64[i], 2e-6 * std::fabs(o64[i]) + 1e-6) << name << " [" << i << "]";
    }
    ASSERT_NE(t->vec32, nullptr) << name;
    float io[32];
    std::memcpy(io, a32.data(), 16 * sizeof(float));
    std::memcpy(io + 16, b32.data(), 16 * sizeof(float));
    t->vec32(io, params);
    for (int i = 0; i < 16; ++i) {
      if (std::isnan(o32[i]))
        EXPECT_TRUE(std::isnan(io[i])) << name;
      else
        EXPECT_EQ(io[i], o32[i]) << name << " vec32 [" << i << "]";
    }
  }
}

TEST(CpuDispatch, SoftmaxRowsTakeTheAvx512FormsWithTheCpu) {
  EXPECT_EQ(avx512_softmax_rows() != nullptr, has_avx512_forms());
}

// The recurrent gate kernels' AVX-512 forms against this file's baseline ones, on a row of
// 37 units (two full 16-lane vectors and a partial one), forward and backward, every mode.
TEST(CpuDispatch, RnnRowsMatchTheBaselineForms) {
  EXPECT_EQ(avx512_rnn_rows_f32() != nullptr, has_avx512_forms());
  EXPECT_EQ(avx512_rnn_rows_f64() != nullptr, has_avx512_forms());
  if (!has_avx512_forms()) GTEST_SKIP() << "no AVX-512 forms here";
  const RnnRowKernels<float>& w = *avx512_rnn_rows_f32();
  const auto base = rnn_cpu::row_kernels<float, RnnRowKernels<float>>();
  const int64_t H = 37;
  auto vals = [&](int64_t n, float scale, int seed) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = scale * std::sin(0.7f * float(i) + float(seed));
    return v;
  };
  auto near = [](const std::vector<float>& a, const std::vector<float>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(a[i], b[i], 2e-6f * (1 + std::fabs(b[i]))) << what << " [" << i << "]";
  };
  const auto x = vals(4 * H, 3, 1), b = vals(4 * H, 0.5f, 2), prev = vals(H, 1, 3),
             gh = vals(4 * H, 2, 4), dh = vals(H, 1, 5), go = vals(H, 0.3f, 6),
             act = vals(4 * H, 0.9f, 7);
  {  // LSTM
    auto g1 = gh, g2 = gh;
    std::vector<float> c1(H), c2(H), h1(H), h2(H);
    w.lstm(H, g1.data(), x.data(), b.data(), prev.data(), c1.data(), h1.data());
    base.lstm(H, g2.data(), x.data(), b.data(), prev.data(), c2.data(), h2.data());
    near(g1, g2, "lstm saved");
    near(c1, c2, "lstm c");
    near(h1, h2, "lstm h");
    std::vector<float> dc1 = vals(H, 0.2f, 8), dc2 = dc1, dg1(4 * H), dg2(4 * H);
    w.lstm_bwd(H, dh.data(), go.data(), go.data(), dc1.data(), act.data(), c1.data(), prev.data(),
               dg1.data());
    base.lstm_bwd(H, dh.data(), go.data(), go.data(), dc2.data(), act.data(), c1.data(),
                  prev.data(), dg2.data());
    near(dc1, dc2, "lstm dc");
    near(dg1, dg2, "lstm dgates");
  }
  {  // GRU
    std::vector<float> h1(H), h2(H), s1(4 * H), s2(4 * H);
    w.gru(H, gh.data(), x.data(), b.data(), prev.data(), h1.data(), s1.data());
    base.gru(H, gh.data(), x.data(), b.data(), prev.data(), h2.data(), s2.data());
    near(h1, h2, "gru h");
    near(s1, s2, "gru saved");
    std::vector<float> dx1(3 * H), dx2(3 * H), dg1(3 * H), dg2(3 * H), dd1(H), dd2(H);
    w.gru_bwd(H, dh.data(), go.data(), act.data(), prev.data(), dx1.data(), dg1.data(), dd1.data());
    base.gru_bwd(H, dh.data(), go.data(), act.data(), prev.data(), dx2.data(), dg2.data(),
                 dd2.data());
    near(dx1, dx2, "gru dx");
    near(dg1, dg2, "gru dgh");
    near(dd1, dd2, "gru dh");
  }
  for (bool relu : {false, true}) {  // Elman
    std::vector<float> h1(gh.begin(), gh.begin() + H), h2 = h1, d1(H), d2(H);
    w.elman(H, relu, h1.data(), x.data(), b.data());
    base.elman(H, relu, h2.data(), x.data(), b.data());
    near(h1, h2, relu ? "relu h" : "tanh h");
    w.elman_bwd(H, relu, dh.data(), go.data(), h1.data(), d1.data());
    base.elman_bwd(H, relu, dh.data(), go.data(), h1.data(), d2.data());
    near(d1, d2, relu ? "relu dpre" : "tanh dpre");
  }
}

}  // namespace
}  // namespace tandem
