// Graph mode in C++: tracing through dispatch, the IR text, CSE / dead-code elimination and
// the executor.
#include <gtest/gtest.h>

#include <cmath>

#include "tandem/autograd/autograd.h"
#include "tandem/core/allocator.h"
#include "tandem/core/error.h"
#include "tandem/graph/executor.h"
#include "tandem/graph/jit.h"
#include "tandem/graph/passes.h"
#include "tandem/graph/tracer.h"
#include "tandem/ops/conv.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/nn.h"
#include "tandem/ops/norm.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using tandem::testing::from_vec;

TEST(Graph, TraceRunAndText) {
  std::string before;
  auto exe = graph::compile(
      [](const std::vector<Tensor>& in) {
        Tensor z = add(in[0], in[1]);
        return std::vector<Tensor>{mul(z, scalar_tensor(Scalar(int64_t(2))))};
      },
      {full({1}, Scalar(int64_t(1))), full({1}, Scalar(int64_t(2)))}, &before);
  EXPECT_NE(before.find("= add(%0, %1) : Int64[1]"), std::string::npos) << before;
  auto out = exe.run({full({1}, Scalar(int64_t(3))), full({1}, Scalar(int64_t(4)))});
  EXPECT_EQ(out[0].item().to_int(), 14);
}

TEST(Graph, CseMergesAndDceRemoves) {
  auto exe = graph::compile(
      [](const std::vector<Tensor>& in) {
        Tensor a = exp(in[0]), b = exp(in[0]);
        Tensor unused = neg(in[0]);
        (void)unused;
        return std::vector<Tensor>{add(a, b)};
      },
      {ones({3})});
  // exp(x) once (CSE), a + a -> a * 2 (simplify), then exp and mul fuse: one kernel.
  EXPECT_EQ(exe.num_kernels(), 1u) << exe.graph().str();
  auto out = exe.run({zeros({3})});
  EXPECT_FLOAT_EQ(out[0].contiguous().data<float>()[0], 2.0f);
}

TEST(Graph, RandomOpsAreNotMerged) {
  auto exe = graph::compile(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{sub(add(in[0], randn({4})), randn({4}))};
      },
      {zeros({4})});
  // Both draws stay (the add and sub fuse into one kernel).
  std::string text = exe.graph().str();
  size_t draws = 0;
  for (size_t p = text.find("= normal("); p != std::string::npos; p = text.find("= normal(", p + 1))
    ++draws;
  EXPECT_EQ(draws, 2u) << text;
}

TEST(Graph, VerifierRejectsUseBeforeDefinition) {
  graph::Graph g;
  int64_t x = g.add_value({2}, DType::Float32);
  int64_t y = g.add_value({2}, DType::Float32);
  g.inputs.push_back(x);
  g.nodes.push_back({find_op("neg"), {}, {y}, {y}});
  EXPECT_THROW(g.verify(), tandem::Error);
}

TEST(Graph, ReadingASymbolicValueThrows) {
  EXPECT_THROW(graph::compile(
                   [](const std::vector<Tensor>& in) {
                     double v = sum(in[0]).item_double();
                     return std::vector<Tensor>{mul(in[0], scalar_tensor(Scalar(v)))};
                   },
                   {ones({2})}),
               tandem::Error);
  EXPECT_EQ(graph::Tracer::active(), nullptr);  // tracing stopped after the error
}

// The cost model on x + x + x: eager (the traced graph) runs two kernels with five array
// passes and two live buffers; the optimized graph one kernel reading x once.
TEST(Graph, CostModelCountsPassesBytesAndPeak) {
  std::string before;
  graph::CostReport eager;
  auto exe = graph::compile(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{add(add(in[0], in[0]), in[0])};
      },
      {ones({1000})}, &before, &eager);
  EXPECT_EQ(eager.kernels, 2);
  EXPECT_EQ(eager.array_passes, 5);
  EXPECT_EQ(eager.bytes_moved, 5 * 4000);
  EXPECT_EQ(eager.peak_bytes, 2 * 4000);
  graph::CostReport compiled = graph::estimate_cost(exe.graph());
  EXPECT_EQ(compiled.kernels, 1);
  EXPECT_EQ(compiled.array_passes, 2);
  EXPECT_EQ(compiled.peak_bytes, 4000);
  EXPECT_EQ(graph::cost_str(compiled).rfind("1 kernel, 2 array passes", 0), 0u);
}

// relu after matmul writes over the matmul's dying output; with a live view of that output
// it must not (the view would see relu's values).
TEST(Graph, ElementwiseWritesInPlaceOnlyOverUnaliasedDyingInputs) {
  Tensor x = randn({4, 3}), w = randn({3, 5});
  Tensor want = relu(matmul(x, w));
  auto plain = graph::compile(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{relu(matmul(in[0], in[1]))}; },
      {x, w});
  EXPECT_EQ(plain.num_inplace_candidates(), 1u) << plain.graph().str();
  EXPECT_TRUE(allclose(plain.run({x, w})[0], want));
  const int64_t buf = 4 * 5 * 4;  // one (4, 5) float32 buffer
  EXPECT_EQ(graph::estimate_cost(plain.graph(), false).peak_bytes, 2 * buf);
  EXPECT_EQ(graph::estimate_cost(plain.graph(), true).peak_bytes, buf);

  auto viewed = graph::compile(
      [](const std::vector<Tensor>& in) {
        Tensor y = matmul(in[0], in[1]);
        Tensor v = reshape(y, {20});
        return std::vector<Tensor>{relu(y), v};
      },
      {x, w});
  auto out = viewed.run({x, w});
  EXPECT_TRUE(allclose(out[0], want));
  EXPECT_TRUE(allclose(out[1], reshape(matmul(x, w), {20})));
  EXPECT_EQ(graph::estimate_cost(viewed.graph(), true).peak_bytes, 2 * buf);  // view keeps y
}

// tandem::jit traces once per signature: shape, dtype and grad mode changes retrace.
TEST(Graph, JitCachesPerSignature) {
  int traces = 0;
  auto f = jit([&](const std::vector<Tensor>& in) {
    ++traces;
    return std::vector<Tensor>{mul(in[0], in[0])};
  });
  Tensor a = full({3}, Scalar(2.0));
  EXPECT_FLOAT_EQ(f({a})[0].contiguous().data<float>()[0], 4.0f);
  f({full({3}, Scalar(3.0))});
  EXPECT_EQ(traces, 1);
  f({ones({4})});
  f({ones({3}, DType::Float64)});
  {
    GradModeGuard off(false);
    f({a});
  }
  EXPECT_EQ(traces, 4);
  EXPECT_EQ(f.num_compiled(), 4u);
  EXPECT_NE(f.explain({a}).find("compiled: 1 kernel"), std::string::npos);
  EXPECT_THROW(f({Tensor()}), ValueError);  // an undefined argument is named, not traced
}

// An update that the trace put after everything else moves up to just after its gradient,
// and writes straight into its (captured) parameter: no buffer for the new value, no copy.
TEST(Graph, UpdatesRunEarlyAndWriteIntoTheirParameter) {
  Tensor w1 = full({64}, Scalar(1.0)), w2 = full({64}, Scalar(2.0));
  auto exe = graph::compile(
      [&](const std::vector<Tensor>& in) {
        Tensor g1 = mul(exp(in[0]), w1);  // "gradients"
        Tensor g2 = sqrt(add(in[0], w2));
        Tensor loss = sum(add(g1, g2));
        apply_inplace("add", w1, g1, Scalar(-0.5));  // the optimizer, traced last
        apply_inplace("add", w2, g2, Scalar(-0.5));
        return std::vector<Tensor>{loss};
      },
      {zeros({64})});
  const graph::Graph& g = exe.graph();
  ASSERT_EQ(g.writebacks.size(), 2u);
  EXPECT_EQ(exe.num_inplace_writebacks(), 2u) << g.str();
  // w1's update comes right after g1's kernel: before the sum that closes the step.
  size_t upd = g.nodes.size(), red = g.nodes.size();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].outputs[0] == g.writebacks[0].second) upd = i;
    if (g.nodes[i].op->name == "sum") red = i;
  }
  EXPECT_LT(upd, red) << g.str();
  const float* p1 = w1.data<float>();
  exe.run({zeros({64})});
  EXPECT_EQ(w1.data<float>(), p1);             // the same buffer, updated in place
  EXPECT_FLOAT_EQ(w1.data<float>()[0], 0.5f);  // 1 - 0.5 * exp(0) * 1
  EXPECT_FLOAT_EQ(w2.data<float>()[3], 2.0f - 0.5f * std::sqrt(2.0f));
  exe.run({zeros({64})});
  EXPECT_FLOAT_EQ(w1.data<float>()[0], 0.25f);  // reads the updated value on the next call

  // A view of the parameter alive elsewhere: the executor falls back to a copy.
  Tensor alias = reshape(w1, {8, 8});
  exe.run({zeros({64})});
  EXPECT_FLOAT_EQ(alias.contiguous().data<float>()[0], 0.125f);
}

// conv2d -> relu becomes one convolution call with the relu folded in (a oneDNN post-op in
// float32; the eager op over the result in float64). Sigmoid and tanh are not folded (the
// post-op measured slower) but the kernel computes them right when asked.
TEST(Graph, ActivationFoldsIntoTheConvolution) {
  Conv2dArgs args;
  args.padding = {1, 1, 1, 1};
  for (DType dt : {DType::Float32, DType::Float64}) {
    Tensor x = to_dtype(randn({2, 3, 9, 9}), dt), w = to_dtype(randn({4, 3, 3, 3}), dt);
    Tensor b = to_dtype(randn({4}), dt);
    for (const char* act : {"relu", "sigmoid", "tanh"}) {
      auto apply = [&](const Tensor& t) {
        std::string a = act;
        return a == "relu" ? relu(t) : a == "sigmoid" ? sigmoid(t) : tanh(t);
      };
      auto exe = graph::compile(
          [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{apply(conv2d(in[0], in[1], in[2], args))};
          },
          {x, w, b});
      bool relu_act = std::string(act) == "relu";
      ASSERT_EQ(exe.num_kernels(), relu_act ? 1u : 2u) << exe.graph().str();
      Tensor want = apply(conv2d(x, w, b, args));
      EXPECT_TRUE(allclose(exe.run({x, w, b})[0], want, 1e-5, 1e-6)) << act;
      // The kernel's own handling of each activation attribute.
      Attrs at{{"stride", args.stride},
               {"padding", args.padding},
               {"dilation", args.dilation},
               {"groups", args.groups},
               {"activation", std::string(act)}};
      Tensor direct = dispatch1(*find_op("conv2d"), {x, w, b}, at);
      EXPECT_TRUE(allclose(direct, want, 1e-5, 1e-6)) << act << " " << dtype_name(dt);
    }
  }
  // The convolution's raw output is also needed elsewhere: nothing folds.
  Tensor x = randn({1, 2, 5, 5}), w = randn({2, 2, 3, 3});
  auto both = graph::compile(
      [](const std::vector<Tensor>& in) {
        Tensor y = conv2d(in[0], in[1], Tensor(), Conv2dArgs{});
        return std::vector<Tensor>{relu(y), y};
      },
      {x, w});
  EXPECT_EQ(both.num_kernels(), 2u);
}

// batch_norm -> relu: the relu runs in the normalization's output pass.
TEST(Graph, ReluFoldsIntoBatchNorm) {
  Tensor x = randn({4, 3, 5, 5}), w = randn({3}), b = randn({3});
  for (bool training : {true, false}) {
    Tensor rm = zeros({3}), rv = ones({3});
    auto f = [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{relu(batch_norm(in[0], rm, rv, w, b, training, 0.1, 1e-5))};
    };
    auto exe = graph::compile(f, {x});
    bool folded = false;
    for (const graph::Node& n : exe.graph().nodes) {
      EXPECT_NE(n.op->name, "relu") << exe.graph().str();
      folded |= n.op->name == "batch_norm" && n.attrs.has("activation");
    }
    EXPECT_TRUE(folded) << exe.graph().str();
    Tensor got = exe.run({x})[0];
    Tensor rm2 = zeros({3}), rv2 = ones({3});
    Tensor want = relu(batch_norm(x, rm2, rv2, w, b, training, 0.1, 1e-5));
    EXPECT_TRUE(equal(got, want)) << training;  // the same arithmetic, bit for bit
  }
}

// Intermediates live in one arena per run: slots are reused once a value dies, offsets are
// aligned, and a run allocates the arena plus its outputs, nothing per kernel.
TEST(Graph, IntermediatesShareOneArena) {
  Tensor x = randn({64, 64}), w = randn({64, 64});
  auto f = [](const std::vector<Tensor>& in) {
    Tensor h = in[0];
    for (int k = 0; k < 6; ++k) h = tanh(matmul(h, in[1]));  // matmul outputs die one by one
    return std::vector<Tensor>{sum(h)};
  };
  auto exe = graph::compile(f, {x, w});
  const graph::MemoryPlan& plan = exe.memory_plan();
  const int64_t buf = 64 * 64 * 4;
  EXPECT_GE(plan.num_arena_values, 6);
  EXPECT_EQ(plan.sum_bytes, 6 * buf);    // tanh writes over its matmul's dying output
  EXPECT_EQ(plan.arena_bytes, 2 * buf);  // two slots alternate
  for (int64_t off : plan.offset)
    if (off >= 0) EXPECT_EQ(off % 64, 0);
  Tensor want = f({x, w})[0];
  exe.run({x, w});  // warm the caches
  int64_t before = allocator_stats().num_allocs;
  Tensor got = exe.run({x, w})[0];
  EXPECT_EQ(allocator_stats().num_allocs - before, 2);  // the arena and the result
  EXPECT_TRUE(allclose(got, want, 1e-5, 1e-5));
}

// A JitFunction stored in a std::function: copies share the compiled cache.
TEST(Graph, JitFunctionIsCopyable) {
  int traces = 0;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> f =
      jit([&](const std::vector<Tensor>& in) {
        ++traces;
        return std::vector<Tensor>{add(in[0], in[0])};
      });
  auto g = f;
  f({ones({2})});
  g({ones({2})});
  EXPECT_EQ(traces, 1);
}

// The remaining algebraic rules: transpose of a transpose, casts that change nothing, and
// x - x for integers. Each keeps eager results exactly.
TEST(Graph, PermuteCastAndSubRules) {
  auto text_of = [](const graph::Executable& e) { return e.graph().str(); };
  Tensor x = randn({2, 3, 4});
  auto tt = graph::compile(
      [](const std::vector<Tensor>& in) {
        Tensor t = permute(permute(in[0], {1, 2, 0}), {2, 0, 1});  // back to x's layout
        return std::vector<Tensor>{exp(t)};
      },
      {x});
  EXPECT_EQ(text_of(tt).find("permute"), std::string::npos) << text_of(tt);
  EXPECT_TRUE(equal(tt.run({x})[0], exp(x)));
  auto t2 = graph::compile(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{exp(permute(permute(in[0], {1, 0, 2}), {0, 2, 1}))};
      },
      {x});
  EXPECT_NE(text_of(t2).find("dims=[1, 2, 0]"), std::string::npos) << text_of(t2);
  EXPECT_TRUE(equal(t2.run({x})[0], exp(permute(permute(x, {1, 0, 2}), {0, 2, 1}))));

  // f32 -> f64 -> f32 is exact: both casts go; f64 -> f32 -> f64 is not: both stay.
  auto c1 = graph::compile(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{exp(to_dtype(to_dtype(in[0], DType::Float64), DType::Float32))};
      },
      {x});
  EXPECT_EQ(text_of(c1).find("cast"), std::string::npos) << text_of(c1);
  Tensor xd = to_dtype(x, DType::Float64);
  auto c2 = graph::compile(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{exp(to_dtype(to_dtype(in[0], DType::Float32), DType::Float64))};
      },
      {xd});
  EXPECT_NE(text_of(c2).find("cast"), std::string::npos) << text_of(c2);
  EXPECT_TRUE(equal(c2.run({xd})[0], exp(to_dtype(to_dtype(xd, DType::Float32), DType::Float64))));
  // A copy returned to the caller stays a copy (no alias of the input).
  auto cl = graph::compile(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{clone(in[0])}; }, {x});
  Tensor y = cl.run({x})[0];
  EXPECT_NE(y.data_ptr(), x.data_ptr());

  Tensor i = full({5}, Scalar(int64_t(7)));
  auto s = graph::compile(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{sub(in[0], in[0])}; }, {i});
  EXPECT_EQ(text_of(s).find("sub("), std::string::npos) << text_of(s);
  EXPECT_TRUE(equal(s.run({i})[0], zeros({5}, DType::Int64)));
}

// backward() inside a C++ jit: the grads it leaves become graph outputs set on the leaves
// after each run, and a change of .grad state (None -> set) recompiles.
TEST(Graph, BackwardInsideJitSetsGrads) {
  Tensor w = full({3}, Scalar(2.0));
  set_requires_grad(w, true);
  int traces = 0;
  auto step = jit([&](const std::vector<Tensor>& in) {
    ++traces;
    set_grad(w, Tensor());  // zero_grad
    Tensor loss = sum(mul(mul(w, w), in[0]));
    backward({loss});
    {
      GradModeGuard off(false);
      apply_inplace("add", w, grad(w), Scalar(-0.1));
    }
    return std::vector<Tensor>{detach(loss)};
  });
  Tensor x = full({3}, Scalar(1.0));
  float expect_w = 2.0f;
  for (int i = 0; i < 4; ++i) {
    Tensor loss = step({x})[0];
    EXPECT_FLOAT_EQ(loss.item().to_double(), 3.0 * expect_w * expect_w);
    float g = 2.0f * expect_w;  // d/dw of w^2
    EXPECT_FLOAT_EQ(grad(w).contiguous().data<float>()[0], g);
    expect_w -= 0.1f * g;
    EXPECT_FLOAT_EQ(w.contiguous().data<float>()[1], expect_w);
  }
  EXPECT_EQ(traces, 2);  // the second call found .grad set: traced once more, then reused
}

// An update waits for the other readers of the tensor it overwrites, so it can still write
// in place: here the weight is read again after its "gradient" exists.
TEST(Graph, UpdateWaitsForTheLastReaderOfItsTensor) {
  Tensor w = full({16}, Scalar(1.0));
  auto exe = graph::compile(
      [&](const std::vector<Tensor>& in) {
        Tensor g = mul(exp(in[0]), w);
        Tensor later = sum(mul(w, in[0]));  // reads w after g
        apply_inplace("add", w, g, Scalar(-0.5));
        return std::vector<Tensor>{later};
      },
      {zeros({16})});
  EXPECT_EQ(exe.num_inplace_writebacks(), 1u) << exe.graph().str();
  exe.run({full({16}, Scalar(1.0))});
  EXPECT_FLOAT_EQ(w.data<float>()[0], 1.0f - 0.5f * std::exp(1.0f));
}

// Elementwise ops whose intermediate is also read outside the group still fuse: the
// intermediate becomes a second output of the one kernel, stored as it is computed.
TEST(Graph, FusedKernelWithSeveralOutputs) {
  Tensor x = randn({256, 33}), y = randn({256, 33}), w = randn({33, 5});
  auto f = [](const std::vector<Tensor>& in) {
    Tensor t = mul(in[0], in[1]);
    Tensor u = exp(t);
    return std::vector<Tensor>{add(u, in[0]), matmul(t, in[2])};
  };
  auto exe = graph::compile(f, {x, y, w});
  const graph::Graph& g = exe.graph();
  EXPECT_EQ(exe.num_kernels(), 2u) << g.str();  // the fused mul/exp/add, the matmul
  size_t fused = 0;
  for (const graph::Node& n : g.nodes)
    if (n.op->name == "fused_elementwise") {
      ++fused;
      EXPECT_EQ(n.outputs.size(), 2u) << g.str();
    }
  EXPECT_EQ(fused, 1u) << g.str();
  auto want = f({x, y, w});
  auto got = exe.run({x, y, w});
  EXPECT_TRUE(equal(got[0], want[0]));  // no reassociation: bit-identical
  EXPECT_TRUE(allclose(got[1], want[1], 1e-6, 1e-6));
  // Strided and broadcast operands go through the driver's tiled path for both outputs.
  Tensor xt = transpose(randn({33, 256}), 0, 1), yb = expand(randn({1, 33}), {256, 33});
  auto got2 = exe.run({xt, yb.contiguous(), w});
  auto want2 = f({xt, yb, w});
  EXPECT_TRUE(equal(got2[0], want2[0]));
}

// A group never absorbs a node whose other input depends on one of the group's values
// through an outside node (amax here): the fused node would have to run before itself.
TEST(Graph, FusionRespectsOutsideReaders) {
  Tensor x = randn({64}), y = randn({64});
  auto f = [](const std::vector<Tensor>& in) {
    Tensor t = mul(in[0], in[1]);
    return std::vector<Tensor>{exp(sub(t, amax(t)))};
  };
  auto exe = graph::compile(f, {x, y});
  EXPECT_EQ(exe.num_kernels(), 3u) << exe.graph().str();  // mul, amax, fused sub+exp
  EXPECT_TRUE(equal(exe.run({x, y})[0], f({x, y})[0]));
}

// An output written early in a fused program may not take the buffer of an input the
// program reads later (it would read its own result); the last output may.
TEST(Graph, EarlyOutputsDoNotOverwriteLaterReadInputs) {
  Tensor x = randn({16, 8}), w = randn({8, 32}), w2 = randn({32, 4});
  auto f = [](const std::vector<Tensor>& in) {
    Tensor a = matmul(in[0], in[1]);
    Tensor t = mul(a, scalar_tensor(Scalar(2.0)));
    Tensor u = add(t, a);  // reads a after t is stored
    return std::vector<Tensor>{u, matmul(t, in[2])};
  };
  auto exe = graph::compile(f, {x, w, w2});
  const graph::Graph& g = exe.graph();
  EXPECT_EQ(exe.num_kernels(), 3u) << g.str();
  std::vector<int64_t> donors = graph::inplace_donors(g);
  for (const graph::Node& n : g.nodes)
    if (n.op->name == "fused_elementwise") {
      ASSERT_EQ(n.outputs.size(), 2u) << g.str();
      int64_t t_out = n.outputs[0], u_out = n.outputs[1];  // in program order
      EXPECT_EQ(donors[size_t(t_out)], -1) << g.str();
      EXPECT_EQ(donors[size_t(u_out)], n.inputs[0]) << g.str();
    }
  auto want = f({x, w, w2});
  auto got = exe.run({x, w, w2});
  EXPECT_TRUE(allclose(got[0], want[0], 1e-6, 1e-6));
  EXPECT_TRUE(allclose(got[1], want[1], 1e-5, 1e-5));
}

// x + 0 -> x is not exact for floats (-0.0 + 0.0 is +0.0): only x + (-0.0) and x - 0.0
// fold; integers fold both. Results stay bit-identical to eager.
TEST(Graph, AddZeroFoldsOnlyWhereExact) {
  // Nodes left of the add / sub (a folded output still gets a copy: eager returned a new
  // tensor, not the argument).
  auto arith = [](const graph::Executable& exe) {
    size_t k = 0;
    for (const graph::Node& n : exe.graph().nodes) k += n.op->name == "add" || n.op->name == "sub";
    return k;
  };
  Tensor x = from_vec<float>({-0.0f, 1.5f, -2.0f}, {3});
  auto count = [&](double c, bool add_op) {
    auto f = [c, add_op](const std::vector<Tensor>& in) {
      Tensor z = scalar_tensor(Scalar(c));
      return std::vector<Tensor>{add_op ? add(in[0], z) : sub(in[0], z)};
    };
    auto exe = graph::compile(f, {x});
    Tensor got = exe.run({x})[0], want = f({x})[0];
    EXPECT_EQ(std::signbit(got.contiguous().data<float>()[0]),
              std::signbit(want.contiguous().data<float>()[0]))
        << c << " " << add_op;
    EXPECT_NE(got.data_ptr(), x.data_ptr());
    return arith(exe);
  };
  EXPECT_EQ(count(0.0, true), 1u);   // x + 0.0 kept: -0.0 becomes +0.0
  EXPECT_EQ(count(-0.0, true), 0u);  // x + (-0.0) is x
  EXPECT_EQ(count(0.0, false), 0u);  // x - 0.0 is x
  EXPECT_EQ(count(-0.0, false), 1u);
  auto ints = graph::compile(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{add(in[0], scalar_tensor(Scalar(int64_t(0))))};
      },
      {from_vec<int64_t>({1, 2}, {2})});
  EXPECT_EQ(arith(ints), 0u);
}
