// Collective communication for data-parallel training: a ProcessGroup over an MPI
// communicator (one process per rank, launched by mpirun). Collectives work in place on
// contiguous tensors, synchronously or asynchronously (a Work handle; the operation runs on
// the group's communication thread, in program order with the group's other operations).
// Every failure (bad tensor, mismatched ranks, an MPI error) throws a tandem error naming the
// collective, the rank and the shape, never aborts the process; an operation that does not
// complete within the group's timeout (another rank died, hangs or diverged) ends the job
// with a message saying so. Built without MPI (TANDEM_HAVE_MPI unset), mpi_available() is
// false and creating a group throws.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/core/tensor.h"

namespace tandem {

class Work;
class CommQueue;

// An MPI failure or ranks that disagree about a collective (Python: RuntimeError).
class DistributedError : public Error {
 public:
  using Error::Error;
};

enum class ReduceOp { Sum, Mean, Max, Min };
const char* reduce_op_name(ReduceOp op);

// Whether this build of tandem has the MPI collectives.
bool mpi_available();
// The thread support MPI granted ("multiple", "serialized", ...); "" before initialisation.
std::string mpi_thread_level();
// Finalises MPI if tandem initialised it (idempotent; also registered with atexit). MPI
// cannot be initialised again afterwards.
void mpi_finalize();
// Ends every process of the job (MPI_Abort) with `code`: an uncaught error on one rank must
// not leave the others waiting in a collective.
[[noreturn]] void mpi_abort(int code);

class ProcessGroup {
 public:
  // A group over all processes of the job: initialises MPI on first use (MPI_Init_thread,
  // asking for MPI_THREAD_MULTIPLE) and duplicates MPI_COMM_WORLD, so tandem's traffic never
  // mixes with other users of the world communicator. timeout_s (> 0) bounds each operation.
  static std::shared_ptr<ProcessGroup> world(double timeout_s);
  // A group of the given ranks of this one (sorted, distinct). Only the members call it.
  std::shared_ptr<ProcessGroup> subgroup(const std::vector<int>& ranks);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;
  int size() const;
  // The world rank of each member, by group rank.
  const std::vector<int>& world_ranks() const;
  double timeout() const;

  // Each collective validates its arguments on the calling thread, then runs now (async_op
  // false: returns null) or on the communication thread (returns its handle).
  //
  // Reduces `t` over all ranks, leaving the result in `t` on every rank. float32, float64,
  // bfloat16 and float16 (reduced in float32), int32, int64 (Mean: floating types only).
  std::shared_ptr<Work> all_reduce(const Tensor& t, ReduceOp op, bool async_op = false);
  // Copies `t` of rank `src` into `t` on every other rank (any dtype).
  std::shared_ptr<Work> broadcast(const Tensor& t, int src, bool async_op = false);
  // outs[r] receives rank r's `in`; outs has size() tensors of in's shape and dtype.
  std::shared_ptr<Work> all_gather(const std::vector<Tensor>& outs, const Tensor& in,
                                   bool async_op = false);
  // `out` receives the reduction over ranks of block rank() of `in`, which holds size()
  // blocks of out's numel (MPI_Reduce_scatter_block).
  std::shared_ptr<Work> reduce_scatter(const Tensor& out, const Tensor& in, ReduceOp op,
                                       bool async_op = false);
  // Point to point: `t` goes to rank dst / is filled from rank src (-1: any rank) with a
  // matching tag; recv's sender must send the same element count and dtype.
  std::shared_ptr<Work> send(const Tensor& t, int dst, int tag, bool async_op = false);
  // The handle's source_rank() is the rank the tensor came from (sync calls: a completed
  // handle).
  std::shared_ptr<Work> recv(const Tensor& t, int src, int tag, bool async_op = false);
  std::shared_ptr<Work> barrier(bool async_op = false);

  struct Impl;

 private:
  explicit ProcessGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tandem
