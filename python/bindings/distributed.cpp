// tandem._C collectives: ProcessGroup over MPI (tandem/distributed). The collectives release
// the GIL while they wait on other ranks.
#include <nanobind/stl/shared_ptr.h>

#include "common.h"
#include "tandem/distributed/process_group.h"

namespace tandem::py {

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
  nb::class_<ProcessGroup>(m, "ProcessGroup",
                           "A group of processes over an MPI communicator (world: all ranks).")
      .def_static("world", &ProcessGroup::world, nb::call_guard<nb::gil_scoped_release>(),
                  "The group of all ranks; initialises MPI on first use.")
      .def_prop_ro("rank", &ProcessGroup::rank, "This process's rank in the group.")
      .def_prop_ro("size", &ProcessGroup::size, "Number of ranks in the group.")
      .def("all_reduce", &ProcessGroup::all_reduce, nb::arg("tensor"), nb::arg("op"),
           nb::call_guard<nb::gil_scoped_release>(), "In-place reduction over all ranks.")
      .def("broadcast", &ProcessGroup::broadcast, nb::arg("tensor"), nb::arg("src"),
           nb::call_guard<nb::gil_scoped_release>(), "In-place copy of rank src's tensor.")
      .def("all_gather", &ProcessGroup::all_gather, nb::arg("tensor_list"), nb::arg("tensor"),
           nb::call_guard<nb::gil_scoped_release>(), "tensor_list[r] receives rank r's tensor.")
      .def("barrier", &ProcessGroup::barrier, nb::call_guard<nb::gil_scoped_release>(),
           "Blocks until every rank reaches it.");
}

}  // namespace tandem::py
