// Collective communication for data-parallel training: a ProcessGroup over an MPI
// communicator (one process per rank, launched by mpirun). Collectives work in place on
// contiguous tensors; every failure (bad tensor, mismatched ranks, an MPI error) throws a
// tandem error naming the collective, the rank and the shape, never aborts the process.
// Built without MPI (TANDEM_HAVE_MPI unset), mpi_available() is false and creating a group
// throws.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/core/tensor.h"

namespace tandem {

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

class ProcessGroup {
 public:
  // A group over all processes of the job: initialises MPI on first use (MPI_Init_thread,
  // asking for MPI_THREAD_MULTIPLE) and duplicates MPI_COMM_WORLD, so tandem's traffic never
  // mixes with other users of the world communicator.
  static std::shared_ptr<ProcessGroup> world();
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;
  int size() const;
  // Reduces `t` over all ranks, leaving the result in `t` on every rank. float32, float64,
  // int32, int64 (Mean: floating types only).
  void all_reduce(const Tensor& t, ReduceOp op);
  // Copies `t` of rank `src` into `t` on every other rank (any dtype).
  void broadcast(const Tensor& t, int src);
  // outs[r] receives rank r's `in`; outs has size() tensors of in's shape and dtype.
  void all_gather(const std::vector<Tensor>& outs, const Tensor& in);
  void barrier();

  struct Impl;

 private:
  explicit ProcessGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tandem
