// tandem._C collectives: ProcessGroup over MPI (tandem/distributed). Collectives and
// Work.wait release the GIL while they wait on other ranks; async_op=True returns a Work.
#include <nanobind/stl/shared_ptr.h>

#include "common.h"
#include "tandem/distributed/collective_ops.h"
#include "tandem/distributed/comm_queue.h"
#include "tandem/distributed/process_group.h"

namespace tandem::py {

namespace {
// Synchronous collectives return None (PyTorch), asynchronous ones their handle.
nb::object handle_or_none(std::shared_ptr<Work> w, bool async_op) {
  return async_op ? nb::cast(std::move(w)) : nb::none();
}
}  // namespace

void bind_distributed(nb::module_& m) {
  nb::enum_<ReduceOp>(m, "ReduceOp", "Reduction of all_reduce.")
      .value("SUM", ReduceOp::Sum)
      .value("AVG", ReduceOp::Mean)
      .value("MAX", ReduceOp::Max)
      .value("MIN", ReduceOp::Min);
  m.def("mpi_available", &mpi_available, "Whether this build of tandem has the MPI collectives.");
  m.def("mpi_thread_level", &mpi_thread_level,
        "The thread support MPI granted ('multiple', 'serialized', ...); '' before init.");
  m.def("mpi_finalize", &mpi_finalize, nb::call_guard<nb::gil_scoped_release>(),
        "Finalises MPI if tandem initialised it; MPI cannot be initialised again afterwards.");
  m.def("mpi_abort", &mpi_abort, nb::arg("code"),
        "Ends every process of the job with exit code `code` (MPI_Abort).");
  m.def("all_reduce_value", &all_reduce_value, nb::arg("tensor"), nb::arg("op"), nb::arg("group"),
        nb::call_guard<nb::gil_scoped_release>(),
        "A new tensor: tensor reduced over the group (an op: traced inside jit).");
  m.def("broadcast_value", &broadcast_value, nb::arg("tensor"), nb::arg("src"), nb::arg("group"),
        nb::call_guard<nb::gil_scoped_release>(),
        "A new tensor: rank src's tensor (an op: traced inside jit).");
  m.def("all_reduce_start", &all_reduce_start, nb::arg("tensor"), nb::arg("op"), nb::arg("group"),
        nb::call_guard<nb::gil_scoped_release>(),
        "A new tensor that the group's communication thread reduces in place; pass it to "
        "all_reduce_wait (ops: traced inside jit, where the work in between overlaps it).");
  m.def("all_reduce_wait", &all_reduce_wait, nb::arg("started"),
        nb::call_guard<nb::gil_scoped_release>(),
        "The result of an all_reduce_start, once its reduction has run.");
  m.def("release_collective_groups", &release_collective_groups,
        nb::call_guard<nb::gil_scoped_release>(),
        "Forgets the groups compiled graphs name (destroy_process_group and exit call it).");
  m.def("all_gather_value", &all_gather_value, nb::arg("tensor"), nb::arg("group"),
        nb::call_guard<nb::gil_scoped_release>(),
        "A new tensor: every rank's tensor concatenated along dim 0 (an op: traced inside jit).");
  nb::class_<Work>(m, "Work", "The handle of an asynchronous collective (async_op=True).")
      .def_static(
          "completed",
          [](const std::string& description) {
            auto w = std::make_shared<Work>(description);
            w->finish(nullptr);
            return w;
          },
          nb::arg("description"),
          "A handle that has already completed (a collective recorded into a traced graph, "
          "which runs where the graph places it).")
      .def(
          "wait",
          [](const Work& w, std::optional<double> timeout) {
            {
              nb::gil_scoped_release release;
              w.wait(timeout.value_or(0));
            }
            return true;
          },
          nb::arg("timeout").none() = nb::none(),
          "Blocks until the operation has run (raises its error; timeout in seconds bounds "
          "the wait). Returns True.")
      .def("is_completed", &Work::is_completed, "Whether the operation has run.")
      .def("source_rank", &Work::source_rank,
           "recv: the rank the tensor came from (-1 before completion).")
      .def("__repr__", [](const Work& w) {
        return "<Work " + w.description() + (w.is_completed() ? " (completed)>" : " (pending)>");
      });
  nb::class_<ProcessGroup>(m, "ProcessGroup",
                           "A group of processes over an MPI communicator (world: all ranks).")
      .def_static("world", &ProcessGroup::world, nb::arg("timeout"),
                  nb::call_guard<nb::gil_scoped_release>(),
                  "The group of all ranks; initialises MPI on first use. timeout (seconds) "
                  "bounds each operation.")
      .def("subgroup", &ProcessGroup::subgroup, nb::arg("ranks"),
           nb::call_guard<nb::gil_scoped_release>(),
           "A group of the given (sorted) ranks; only its members call it.")
      .def_prop_ro("rank", &ProcessGroup::rank, "This process's rank in the group.")
      .def_prop_ro("size", &ProcessGroup::size, "Number of ranks in the group.")
      .def_prop_ro("world_ranks", &ProcessGroup::world_ranks,
                   "The world rank of each member, by group rank.")
      .def_prop_ro("timeout", &ProcessGroup::timeout, "Seconds an operation may take.")
      .def(
          "all_reduce",
          [](ProcessGroup& g, const Tensor& t, ReduceOp op, bool async_op) {
            std::shared_ptr<Work> w;
            {
              nb::gil_scoped_release release;
              w = g.all_reduce(t, op, async_op);
            }
            return handle_or_none(std::move(w), async_op);
          },
          nb::arg("tensor"), nb::arg("op"), nb::arg("async_op") = false,
          "In-place reduction over all ranks.")
      .def(
          "broadcast",
          [](ProcessGroup& g, const Tensor& t, int src, bool async_op) {
            std::shared_ptr<Work> w;
            {
              nb::gil_scoped_release release;
              w = g.broadcast(t, src, async_op);
            }
            return handle_or_none(std::move(w), async_op);
          },
          nb::arg("tensor"), nb::arg("src"), nb::arg("async_op") = false,
          "In-place copy of rank src's tensor.")
      .def(
          "all_gather",
          [](ProcessGroup& g, const std::vector<Tensor>& outs, const Tensor& in, bool async_op) {
            std::shared_ptr<Work> w;
            {
              nb::gil_scoped_release release;
              w = g.all_gather(outs, in, async_op);
            }
            return handle_or_none(std::move(w), async_op);
          },
          nb::arg("tensor_list"), nb::arg("tensor"), nb::arg("async_op") = false,
          "tensor_list[r] receives rank r's tensor.")
      .def(
          "reduce_scatter",
          [](ProcessGroup& g, const Tensor& out, const Tensor& in, ReduceOp op, bool async_op) {
            std::shared_ptr<Work> w;
            {
              nb::gil_scoped_release release;
              w = g.reduce_scatter(out, in, op, async_op);
            }
            return handle_or_none(std::move(w), async_op);
          },
          nb::arg("output"), nb::arg("input"), nb::arg("op"), nb::arg("async_op") = false,
          "output receives the reduction of block rank of input (size blocks).")
      .def(
          "send",
          [](ProcessGroup& g, const Tensor& t, int dst, int tag, bool async_op) {
            std::shared_ptr<Work> w;
            {
              nb::gil_scoped_release release;
              w = g.send(t, dst, tag, async_op);
            }
            return handle_or_none(std::move(w), async_op);
          },
          nb::arg("tensor"), nb::arg("dst"), nb::arg("tag") = 0, nb::arg("async_op") = false,
          "Sends tensor to rank dst.")
      .def(
          "recv",
          [](ProcessGroup& g, const Tensor& t, int src, int tag, bool async_op) -> nb::object {
            std::shared_ptr<Work> w;
            {
              nb::gil_scoped_release release;
              w = g.recv(t, src, tag, async_op);
            }
            if (async_op) return nb::cast(std::move(w));
            return nb::int_(w->source_rank());
          },
          nb::arg("tensor"), nb::arg("src"), nb::arg("tag") = 0, nb::arg("async_op") = false,
          "Receives into tensor from rank src (-1: any); returns the sender's rank (sync).")
      .def(
          "barrier",
          [](ProcessGroup& g, bool async_op) {
            std::shared_ptr<Work> w;
            {
              nb::gil_scoped_release release;
              w = g.barrier(async_op);
            }
            return handle_or_none(std::move(w), async_op);
          },
          nb::arg("async_op") = false, "Blocks until every rank reaches it.");
}

}  // namespace tandem::py
