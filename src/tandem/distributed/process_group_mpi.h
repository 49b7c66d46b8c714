// Internal to src/tandem/distributed (MPI builds): the state of a ProcessGroup over an MPI
// communicator, shared by the collectives (process_group.cpp) and the point-to-point
// operations (process_group_p2p.cpp).
#pragma once
// The C API only: the deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tandem/core/shape.h"
#include "tandem/distributed/agreement.h"
#include "tandem/distributed/comm_queue.h"
#include "tandem/distributed/exit_notices.h"
#include "tandem/distributed/process_group.h"

namespace tandem {
namespace distributed {
// Throws DistributedError naming `what` and the rank unless rc is MPI_SUCCESS.
void check_mpi(int rc, const std::string& what, int rank);
// The same without building a string on the (every-call) success path.
inline void check_mpi(int rc, const char* what, int rank) {
  if (rc != MPI_SUCCESS) [[unlikely]]
    check_mpi(rc, std::string(what), rank);
}
// The thread support MPI granted (MPI_THREAD_*), -1 before initialisation.
int granted_thread_level();
// Below MPI_THREAD_MULTIPLE, operations of different groups must not overlap.
std::mutex& serial_mutex();
}  // namespace distributed

using distributed::check_mpi;

enum Kind : int64_t { AllReduce = 1, Broadcast, AllGather, ReduceScatter, Barrier };

inline std::string describe(const char* op, const Tensor& t) {
  return detail::cat(op, " of a ", dtype_short_name(t.dtype()), " tensor of shape ",
                     shape_str(t.shape()));
}

struct ProcessGroup::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::vector<int> world_ranks;
  double timeout = 0;
  std::unique_ptr<CommQueue> queue;
  int64_t key = 0;                          // distributed::group_key of the members
  std::atomic<int64_t>* started = nullptr;  // collectives this rank started on the group

  // Ends the job when an operation has not completed within the timeout.
  Work::TimeoutHandler timeout_handler() const {
    int world_rank = world_ranks.empty() ? rank : world_ranks[size_t(rank)];
    return [world_rank](const std::string& what, double s) {
      std::fprintf(stderr,
                   "tandem.distributed: rank %d: %s has not completed after %.1f s (the "
                   "process group's timeout): another rank failed, exited, or is waiting in "
                   "a different collective. Aborting the job.\n",
                   world_rank, what.c_str(), s);
      mpi_abort(1);
    };
  }

  // Sets the group's identity from world_ranks and starts its queue, whose watchdog also ends
  // the job as soon as a member has exited before the running collective.
  void start_queue() {
    key = distributed::group_key(world_ranks);
    started = distributed::collective_counter(key);
    queue = std::make_unique<CommQueue>(
        timeout, timeout_handler(),
        [members = world_ranks, k = key, n = started](const std::string& what) {
          distributed::check_exited_peers(k, members, n->load(), what);
        });
  }

  std::shared_ptr<Work> post_p2p(std::string desc, bool async_op,
                                 const std::function<MPI_Request()>& post,
                                 std::function<int(const MPI_Status&)> complete);

  // Checks that `t` can be handed to MPI as a flat buffer.
  void check_tensor(const Tensor& t, const char* op, const char* arg) const {
    TANDEM_CHECK(t.defined(), ValueError, op, " (rank ", rank, "): ", arg, " is undefined");
    TANDEM_CHECK(!t.is_symbolic(), ValueError, op, " (rank ", rank, "): ", arg,
                 " is a symbolic tensor of a graph being traced; collectives run eagerly, "
                 "outside jit / GRAPH_MODE");
    TANDEM_CHECK(t.is_contiguous(), ValueError, op, " (rank ", rank, "): ", arg, " of shape ",
                 shape_str(t.shape()),
                 " is not contiguous; the collective works in place on dense memory, pass "
                 "t.contiguous() and copy the result back");
  }

  // All ranks agree on the kind, element count, dtype, root and reduction of a collective,
  // or all throw. Runs inside the operation (on the queue), so the order matches the other
  // ranks'. `fused` carries a small all_reduce's payload, reduced by the same round trip.
  void agree(Kind kind, const char* op, const Tensor* t, int root, int64_t reduce = -1,
             distributed::AgreementRecord* fused = nullptr) {
    using distributed::Field;
    distributed::AgreementRecord local;
    distributed::AgreementRecord& rec = fused ? *fused : local;
    started->fetch_add(1);
    const int64_t numel = t ? t->numel() : 0, dt = t ? int64_t(t->dtype()) : -1;
    rec.set(Field::Kind, kind);
    rec.set(Field::Numel, numel);
    rec.set(Field::DType, dt);
    rec.set(Field::Root, root);
    rec.set(Field::Op, reduce);
    if (!fused) rec.set(Field::ReduceType, int64_t(distributed::PayloadType::None));
    check_mpi(distributed::agree_and_reduce(rec, comm), op, rank);
    if (rec.all_uniform()) return;
    TANDEM_CHECK(rec.uniform(Field::Kind), DistributedError, op, " (rank ", rank,
                 "): the ranks are running different collectives at this point (this rank: ", op,
                 "); every rank must issue the same collectives in the same order");
    TANDEM_CHECK(rec.uniform(Field::Numel) && rec.uniform(Field::DType) && rec.uniform(Field::Root),
                 DistributedError, op, " (rank ", rank,
                 "): ranks disagree on the tensor: this rank has shape ", shape_str(t->shape()),
                 " (", numel, " elements) of ", dtype_name(t->dtype()),
                 root >= 0 ? detail::cat(", src ", root) : "", "; element counts range over [",
                 rec.lo(Field::Numel), ", ", rec.hi(Field::Numel),
                 "]; every rank must pass a tensor of the same size and dtype",
                 root >= 0 ? " and the same src" : "");
    TANDEM_CHECK(false, DistributedError, op, " (rank ", rank,
                 "): ranks pass different reduce ops (this rank: ",
                 reduce_op_name(ReduceOp(reduce)), "); every rank must use the same op");
  }

  // Runs fn now, after what is queued (returns null), or on the communication thread (returns
  // the pending handle). The operation is described as "<op> of a <dtype> tensor of shape
  // <shape>" (or just op without a tensor): formatted only for a handle or a timeout
  // report, so a synchronous call allocates nothing on its own behalf.
  template <class Fn>
  std::shared_ptr<Work> dispatch(const char* op, const Tensor* t, bool async_op, Fn&& fn) {
    auto guarded = [fn = std::forward<Fn>(fn)]() mutable {
      std::unique_lock<std::mutex> lock;
      if (distributed::granted_thread_level() < MPI_THREAD_MULTIPLE)
        lock = std::unique_lock<std::mutex>(distributed::serial_mutex());
      fn();
    };
    if (async_op) {
      auto work = std::make_shared<Work>(t ? describe(op, *t) : std::string(op));
      queue->submit(work, std::move(guarded));
      return work;
    }
    queue->run([op, t] { return t ? describe(op, *t) : std::string(op); }, guarded);
    return nullptr;
  }
};

}  // namespace tandem
