// Collectives as ops: value-returning all_reduce / broadcast / all_gather that eager mode
// runs at once and tracing (jit, GRAPH_MODE) records as graph nodes, so a compiled train
// step contains its reductions. The ops are stateful (no pass merges, folds or drops them,
// and they run at their place in program order on every call, the same order on every
// rank); the group travels as an id into a registry of the process's groups.
#pragma once
#include <cstdint>
#include <memory>

#include "tandem/core/tensor.h"
#include "tandem/distributed/process_group.h"

namespace tandem {

// The id graph nodes use for `g` (the same id for the same group).
int64_t collective_group_id(const std::shared_ptr<ProcessGroup>& g);
// Forgets every registered group (destroy_process_group, exit): graphs that name them then
// raise, and the groups' communicators can be freed before MPI_Finalize.
void release_collective_groups();

// x reduced over the group's ranks (a new tensor). Differentiable for Sum and Mean: the
// gradient is the same reduction of the incoming gradient.
Tensor all_reduce_value(const Tensor& x, ReduceOp op, const std::shared_ptr<ProcessGroup>& g);
// all_reduce in two steps (no gradient): start returns at once with a tensor that the group's
// communication thread is reducing in place; wait(that tensor) blocks until the reduction has
// run and returns the result. In a compiled step the computation between the two overlaps
// the communication.
Tensor all_reduce_start(const Tensor& x, ReduceOp op, const std::shared_ptr<ProcessGroup>& g);
Tensor all_reduce_wait(const Tensor& started);
// Rank src's x on every rank (a new tensor).
Tensor broadcast_value(const Tensor& x, int src, const std::shared_ptr<ProcessGroup>& g);
// Every rank's x concatenated along dim 0, in rank order.
Tensor all_gather_value(const Tensor& x, const std::shared_ptr<ProcessGroup>& g);

}  // namespace tandem
