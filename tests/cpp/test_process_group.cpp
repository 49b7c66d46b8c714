// ProcessGroup in a world of one rank (a test process is an MPI singleton): collectives are
// identities and bad tensors raise the documented error classes naming the collective and
// rank. The multi-rank behaviour is tested under mpirun by tests/python/test_distributed.py.
#include <gtest/gtest.h>

#include <functional>

#include "tandem/distributed/comm_queue.h"
#include "tandem/distributed/process_group.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/shape_ops.h"
#include "test_util.h"

using namespace tandem;
using namespace tandem::testing;

namespace {
// Open MPI keeps allocations until exit that LeakSanitizer reports as leaks.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

std::shared_ptr<ProcessGroup> world_or_skip() {
  if (!mpi_available() || kSanitized) return nullptr;
  return ProcessGroup::world(1800);
}

template <typename E>
void expect_error(const std::function<void()>& fn, const std::string& fragment) {
  try {
    fn();
    ADD_FAILURE() << "no exception, expected one containing: " << fragment;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(ProcessGroup, WithoutMpiCreatingAGroupThrows) {
  if (mpi_available()) GTEST_SKIP() << "built with MPI";
  expect_error<DistributedError>([] { ProcessGroup::world(10); }, "built without MPI");
}

TEST(ProcessGroup, WorldOfOneCollectivesAreIdentities) {
  auto g = world_or_skip();
  if (!g) GTEST_SKIP() << "no MPI build, or a sanitizer build";
  EXPECT_EQ(g->rank(), 0);
  EXPECT_EQ(g->size(), 1);
  EXPECT_FALSE(mpi_thread_level().empty());
  Tensor f = iota<float>({3, 5});
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min}) {
    g->all_reduce(f, op);
    EXPECT_EQ(values(f), values(iota<float>({3, 5}))) << reduce_op_name(op);
  }
  Tensor i = iota<int64_t>({7});
  g->all_reduce(i, ReduceOp::Sum);
  EXPECT_EQ(values(i), values(iota<int64_t>({7})));
  g->broadcast(i, 0);
  EXPECT_EQ(values(i), values(iota<int64_t>({7})));
  Tensor out = Tensor::empty({7}, DType::Int64);
  g->all_gather({out}, i);
  EXPECT_EQ(values(out), values(i));
  g->barrier();
  Tensor rs = Tensor::empty({3, 5}, DType::Float32);
  g->reduce_scatter(rs, iota<float>({3, 5}), ReduceOp::Sum);
  EXPECT_EQ(values(rs), values(iota<float>({3, 5})));
}

TEST(ProcessGroup, AsyncCollectivesCompleteInOrder) {
  auto g = world_or_skip();
  if (!g) GTEST_SKIP() << "no MPI build, or a sanitizer build";
  Tensor f = iota<float>({64});
  std::vector<std::shared_ptr<Work>> works;
  for (int i = 0; i < 8; ++i) works.push_back(g->all_reduce(f, ReduceOp::Mean, true));
  works.push_back(g->barrier(true));
  for (auto& w : works) w->wait();
  for (auto& w : works) EXPECT_TRUE(w->is_completed());
  EXPECT_EQ(values(f), values(iota<float>({64})));
  // 16-bit floats reduce in float32 and come back unchanged in a world of one.
  Tensor h = to_dtype(iota<float>({9}), DType::BFloat16);
  g->all_reduce(h, ReduceOp::Sum, true)->wait();
  EXPECT_EQ(values(to_dtype(h, DType::Float32)), values(iota<float>({9})));
  // Argument errors raise on the calling thread, before anything is queued.
  expect_error<ValueError>([&] { g->broadcast(f, 3, true); }, "src 3 is not a rank");
  g->barrier();
}

TEST(ProcessGroup, BadTensorsRaiseNamingTheCollective) {
  auto g = world_or_skip();
  if (!g) GTEST_SKIP() << "no MPI build, or a sanitizer build";
  Tensor f = iota<float>({4, 6});
  expect_error<ValueError>([&] { g->all_reduce(transpose(f, 0, 1), ReduceOp::Sum); },
                           "all_reduce (rank 0): tensor of shape [6, 4] is not contiguous");
  expect_error<TypeError>([&] { g->all_reduce(to_dtype(f, DType::Bool), ReduceOp::Sum); }, "Bool");
  expect_error<TypeError>([&] { g->all_reduce(iota<int32_t>({3}), ReduceOp::Mean); },
                          "AVG needs a floating tensor");
  expect_error<ValueError>([&] { g->broadcast(f, 1); }, "src 1 is not a rank");
  expect_error<ValueError>([&] { g->all_gather({f, f}, f); }, "group size is 1");
  expect_error<ValueError>([&] { g->all_gather({iota<float>({4})}, f); },
                           "tensor_list[0] has shape [4]");
}
