// The error catalogue: representative bad inputs raise the right tandem exception class
// (which Python maps to ValueError / TypeError / IndexError) with the op named in the message.
#include <gtest/gtest.h>

#include "tandem/core/error.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;
using std::nullopt;

namespace {
Tensor f32(const Shape& s) {
  return iota<float>(s);
}
Tensor i32(const Shape& s) {
  return iota<int32_t>(s);
}
}  // namespace

TEST(Errors, ClassHierarchy) {
  // Every class is a tandem::Error and a std::runtime_error, so one catch handles all.
  EXPECT_THROW(throw_error<ValueError>("x"), Error);
  EXPECT_THROW(throw_error<TypeError>("x"), Error);
  EXPECT_THROW(throw_error<IndexError>("x"), std::runtime_error);
  EXPECT_THROW(throw_error<NotImplementedError>("x"), Error);
  try {
    TANDEM_CHECK(1 == 2, ValueError, "op: got ", 3, " and ", 4.5, " for ", shape_str({2}));
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "op: got 3 and 4.5 for [2]");
  }
}

TEST(Errors, ValueErrors) {
  auto x = f32({2, 3});
  EXPECT_TRUE(throws_with<ValueError>([&] { add(x, f32({4})); }, {"add", "[2, 3]", "[4]"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { mul(f32({3, 1}), f32({2, 2})); }, {"mul"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { where(from_bools({1, 0}, {2}), x, x); }, {"where"}));
  // In-place: the result shape must be the destination's.
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        apply_inplace("add", f32({3}), f32({2, 3}));
      },
      {"add", "[3]", "[2, 3]"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { copy_(f32({3}), f32({2})); }, {"copy_"}));
  // Undefined tensors (None from Python) are reported, not dereferenced.
  EXPECT_TRUE(throws_with<ValueError>([&] { add(x, Tensor()); }, {"add", "input 1", "None"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { apply_inplace("mul", x, Tensor()); }, {"mul", "None"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { reshape(x, {4, -1}); }, {"reshape", "[4, -1]", "6"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { reshape(x, {-1, -1}); }, {"reshape"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { reshape(x, {-2, 3}); }, {"reshape"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { view(transpose(x, 0, 1), {6}); }, {"view"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { permute(x, {0}); }, {"permute"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { permute(x, {1, 1}); }, {"permute", "repeated"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { expand(x, {3, 3}); }, {"expand", "3"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { expand(x, {3}); }, {"expand"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { slice(x, 1, 0, 2, 0); }, {"slice", "step"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { diagonal(f32({3})); }, {"diagonal"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { diagonal(x, 0, 1, -1); }, {"diagonal"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { tandem::t(f32({2, 2, 2})); }, {"t:"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { split(x, 0); }, {"split"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { split_sizes(x, {1, 1}, 1); }, {"split", "3"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { chunk(x, -1); }, {"chunk"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { unbind(f32({})); }, {"unbind"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { flatten(x, 1, 0); }, {"flatten"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { f32({2}).item(); }, {"item", "2 elements"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { Tensor::empty({-1}, DType::Float32); }, {"empty"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        sum(x, std::vector<int64_t>{0, -2});
      },
      {"sum", "multiple"}));
  // Integer division by zero is PyTorch's RuntimeError "ZeroDivisionError", raised by the
  // kernel (so a Python int that is 0 in the tensor's dtype, and graph mode, get it too).
  EXPECT_TRUE(throws_with<Error>([&] { floor_divide(i32({3}), i32({3})); },
                                 {"floor_divide", "division by zero"}));
  EXPECT_TRUE(
      throws_with<Error>([&] { remainder(i32({3}), scalar_tensor(Scalar(0))); }, {"remainder"}));
  EXPECT_TRUE(throws_with<Error>(
      [&] { remainder(i32({3}), scalar_tensor(Scalar(int64_t(1) << 32))); }, {"remainder"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { div(x, x, "round"); }, {"div", "round"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { isclose(x, x, -1.0); }, {"isclose"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { gelu(x, "fast"); }, {"gelu", "fast"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { hardtanh(x, 1.0, -1.0); }, {"hardtanh"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { clamp(x, nullopt, nullopt); }, {"clamp"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { arange(0, 10, 0); }, {"arange"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { zeros({2, -3}); }, {"-3"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { linspace(0, 1, -1); }, {"linspace"}));
}

TEST(Errors, TypeErrors) {
  auto x = f32({2, 3});
  auto b = from_bools({1, 0}, {2});
  EXPECT_TRUE(throws_with<TypeError>([&] { bitwise_and(x, x); }, {"bitwise_and", "Float32"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { bitwise_left_shift(i32({2}), scalar_tensor(0.5)); },
                                     {"bitwise_left_shift"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { hypot(i32({2}), i32({2})); }, {"hypot"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { sub(b, b); }, {"sub", "bool"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { neg(b); }, {"neg"}));
  // In-place results must be castable to the destination's dtype.
  EXPECT_TRUE(throws_with<TypeError>([&] { apply_inplace("add", i32({2}), f32({2})); },
                                     {"add", "Float32", "Int32"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { apply_inplace("mul", b, i32({2})); }, {"mul"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { mean(i32({3})); }, {"mean", "Int32"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { var(i32({3})); }, {"var"}));
  EXPECT_TRUE(throws_with<TypeError>([&] { gather(x, 0, f32({2, 3})); }, {"gather"}));
}

TEST(Errors, IndexErrors) {
  auto x = f32({2, 3});
  EXPECT_TRUE(throws_with<IndexError>([&] { sum(x, std::vector<int64_t>{2}); },
                                      {"sum", "[-2, 1]", "got 2"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { amax(x, std::vector<int64_t>{-3}); }, {"amax"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { argmax(x, 5); }, {"max_dim"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { transpose(x, 0, 2); }, {"transpose"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { permute(x, {0, 2}); }, {"permute"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { unsqueeze(x, 3); }, {"unsqueeze"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { squeeze(x, std::vector<int64_t>{-3}); }, {"squeeze"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { select(x, 1, 3); }, {"select", "3", "size 3"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { select(x, 0, -3); }, {"select"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { select(f32({}), 0, 0); }, {"select"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { slice(x, 2, 0, 1, 1); }, {"slice"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { narrow(x, 1, 2, 2); }, {"narrow"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { narrow(x, 1, -4, 1); }, {"narrow"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { as_strided(x, {3, 3}, {3, 1}, 0); }, {"as_strided"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.size(2); }, {"size"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { f32({}).size(0); }, {"size"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { amax(f32({0})); }, {"amax"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { max_dim(f32({0, 2}), 0); }, {"max_dim"}));
  // Index ops: the message names the shared "index" kernel (see the report), and the index.
  EXPECT_TRUE(throws_with<IndexError>([&] { index_select(x, 0, f32({1})); }, {"Float32"}));
  EXPECT_TRUE(throws_with<IndexError>(
      [&] {
        index_select(x, 1, from_vec<int64_t>({0, 3}, {2}));
      },
      {"index_select", "out of range", "3"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { take(x, from_vec<int64_t>({-7}, {1})); },
                                      {"out of bounds", "-7"}));
}

TEST(Errors, FailedOpsLeaveInputsUntouched) {
  // A rejected in-place op must not have written anything first.
  Tensor x = from_vec<int32_t>({1, 2, 3}, {3});
  EXPECT_THROW(apply_inplace("add", x, f32({3})), TypeError);
  EXPECT_THROW(apply_inplace("floor_divide", x, from_vec<int32_t>({1, 0, 1}, {3})), Error);
  EXPECT_EQ(values(x), (std::vector<double>{1, 2, 3}));
}
