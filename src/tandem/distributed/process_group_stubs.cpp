// ProcessGroup in a build without MPI: the group cannot be created, and mpi_available()
// says so.
#ifndef TANDEM_HAVE_MPI
#include <cstdio>
#include <cstdlib>

#include "tandem/distributed/comm_queue.h"
#include "tandem/distributed/process_group.h"

namespace tandem {

bool mpi_available() {
  return false;
}
std::string mpi_thread_level() {
  return "";
}
void mpi_finalize() {}
void mpi_abort(int code) {
  std::fflush(stderr);
  std::_Exit(code);
}

struct ProcessGroup::Impl {
  std::vector<int> world_ranks{0};
};

namespace {
[[noreturn]] void no_mpi() {
  throw_error<DistributedError>(
      "tandem was built without MPI: install an MPI implementation (Debian: libopenmpi-dev "
      "openmpi-bin) and rebuild tandem to use tandem.mint.distributed");
}
}  // namespace

std::shared_ptr<ProcessGroup> ProcessGroup::world(double) {
  no_mpi();
}
std::shared_ptr<ProcessGroup> ProcessGroup::subgroup(const std::vector<int>&) {
  no_mpi();
}
ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProcessGroup::~ProcessGroup() = default;
int ProcessGroup::rank() const {
  return 0;
}
int ProcessGroup::size() const {
  return 1;
}
const std::vector<int>& ProcessGroup::world_ranks() const {
  return impl_->world_ranks;
}
double ProcessGroup::timeout() const {
  return 0;
}
std::shared_ptr<Work> ProcessGroup::all_reduce(const Tensor&, ReduceOp, bool) {
  no_mpi();
}
std::shared_ptr<Work> ProcessGroup::broadcast(const Tensor&, int, bool) {
  no_mpi();
}
std::shared_ptr<Work> ProcessGroup::all_gather(const std::vector<Tensor>&, const Tensor&, bool) {
  no_mpi();
}
std::shared_ptr<Work> ProcessGroup::reduce_scatter(const Tensor&, const Tensor&, ReduceOp, bool) {
  no_mpi();
}
std::shared_ptr<Work> ProcessGroup::send(const Tensor&, int, int, bool) {
  no_mpi();
}
std::shared_ptr<Work> ProcessGroup::recv(const Tensor&, int, int, bool) {
  no_mpi();
}
std::shared_ptr<Work> ProcessGroup::barrier(bool) {
  no_mpi();
}

}  // namespace tandem
#endif
