// MPI implementation of ProcessGroup. Each collective first agrees on (numel, dtype, root)
// across ranks with one small MPI_Allreduce, so ranks that disagree all raise the same
// error instead of hanging or reading past a buffer; MPI errors come back as return codes
// (MPI_ERRORS_RETURN) and become DistributedError.
#include "tandem/distributed/process_group.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "tandem/core/shape.h"

#ifdef TANDEM_HAVE_MPI
#include <dlfcn.h>
// The C API only: the deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace tandem {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "SUM";
    case ReduceOp::Mean:
      return "AVG";
    case ReduceOp::Max:
      return "MAX";
    case ReduceOp::Min:
      return "MIN";
  }
  return "?";
}

#ifndef TANDEM_HAVE_MPI

bool mpi_available() {
  return false;
}
std::string mpi_thread_level() {
  return "";
}
void mpi_finalize() {}

struct ProcessGroup::Impl {};

std::shared_ptr<ProcessGroup> ProcessGroup::world() {
  throw_error<DistributedError>(
      "tandem was built without MPI: install an MPI implementation (Debian: libopenmpi-dev "
      "openmpi-bin) and rebuild tandem to use tandem.mint.distributed");
}
ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProcessGroup::~ProcessGroup() = default;
int ProcessGroup::rank() const {
  return 0;
}
int ProcessGroup::size() const {
  return 1;
}
void ProcessGroup::all_reduce(const Tensor&, ReduceOp) {}
void ProcessGroup::broadcast(const Tensor&, int) {}
void ProcessGroup::all_gather(const std::vector<Tensor>&, const Tensor&) {}
void ProcessGroup::barrier() {}

#else

namespace {

std::mutex g_init_mutex;
bool g_we_initialized = false;
int g_thread_level = -1;

void check_mpi(int rc, const char* what, int rank) {
  if (rc == MPI_SUCCESS) [[likely]]
    return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
  throw_error<DistributedError>(what, " (rank ", rank, "): MPI error ", rc, ": ",
                                std::string(msg, size_t(len)));
}

void ensure_initialized() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  TANDEM_CHECK(!finalized, DistributedError,
               "init_process_group: MPI was already finalised in this process and cannot be "
               "initialised again; create the process group once per process");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    if (g_thread_level < 0) MPI_Query_thread(&g_thread_level);
    return;
  }
  // Open MPI loads its transports as plugins that resolve symbols of libmpi; tandem is
  // itself loaded by Python with RTLD_LOCAL, so libmpi is promoted to global scope first.
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  int provided = 0;
  int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  check_mpi(rc, "init_process_group: MPI_Init_thread", 0);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  g_thread_level = provided;
  g_we_initialized = true;
  std::atexit(mpi_finalize);
}

MPI_Datatype mpi_reduce_type(DType dt) {
  switch (dt) {
    case DType::Float32:
      return MPI_FLOAT;
    case DType::Float64:
      return MPI_DOUBLE;
    case DType::Int32:
      return MPI_INT32_T;
    case DType::Int64:
      return MPI_INT64_T;
    default:
      return MPI_DATATYPE_NULL;
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      return MPI_SUM;
    case ReduceOp::Max:
      return MPI_MAX;
    case ReduceOp::Min:
      return MPI_MIN;
  }
  return MPI_OP_NULL;
}

}  // namespace

bool mpi_available() {
  return true;
}

std::string mpi_thread_level() {
  switch (g_thread_level) {
    case MPI_THREAD_SINGLE:
      return "single";
    case MPI_THREAD_FUNNELED:
      return "funneled";
    case MPI_THREAD_SERIALIZED:
      return "serialized";
    case MPI_THREAD_MULTIPLE:
      return "multiple";
    default:
      return "";
  }
}

void mpi_finalize() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (!g_we_initialized) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  g_we_initialized = false;
}

struct ProcessGroup::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  // Below MPI_THREAD_MULTIPLE, calls from several Python threads must not overlap.
  std::mutex call_mutex;
  bool serialize = true;

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

  // All ranks agree on the byte count, dtype and root of a collective, or all throw.
  void agree(const char* op, const Tensor& t, int root) {
    int64_t mine[3] = {t.numel(), int64_t(t.dtype()), root};
    int64_t buf[6] = {mine[0], mine[1], mine[2], -mine[0], -mine[1], -mine[2]};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, buf, 6, MPI_INT64_T, MPI_MAX, comm), op, rank);
    bool same = true;
    for (int i = 0; i < 3; ++i) same = same && buf[i] == mine[i] && -buf[3 + i] == mine[i];
    TANDEM_CHECK(same, DistributedError, op, " (rank ", rank,
                 "): ranks disagree on the tensor: ", "this rank has shape ", shape_str(t.shape()),
                 " (", t.numel(), " elements) of ", dtype_name(t.dtype()),
                 root >= 0 ? detail::cat(", src ", root) : "", "; element counts range over [",
                 -buf[3], ", ", buf[0],
                 "]; every rank must pass a tensor of the same size and dtype",
                 root >= 0 ? " and the same src" : "");
  }
};

ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ProcessGroup::~ProcessGroup() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
}

std::shared_ptr<ProcessGroup> ProcessGroup::world() {
  ensure_initialized();
  auto impl = std::make_unique<Impl>();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &impl->comm), "init_process_group: MPI_Comm_dup", rank);
  MPI_Comm_set_errhandler(impl->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(impl->comm, &impl->rank);
  MPI_Comm_size(impl->comm, &impl->size);
  impl->serialize = g_thread_level < MPI_THREAD_MULTIPLE;
  return std::shared_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

int ProcessGroup::rank() const {
  return impl_->rank;
}
int ProcessGroup::size() const {
  return impl_->size;
}

namespace {
std::unique_lock<std::mutex> maybe_lock(ProcessGroup::Impl& g) {
  return g.serialize ? std::unique_lock<std::mutex>(g.call_mutex) : std::unique_lock<std::mutex>();
}
}  // namespace

void ProcessGroup::all_reduce(const Tensor& t, ReduceOp op) {
  Impl& g = *impl_;
  g.check_tensor(t, "all_reduce", "tensor");
  MPI_Datatype type = mpi_reduce_type(t.dtype());
  TANDEM_CHECK(type != MPI_DATATYPE_NULL, TypeError, "all_reduce (rank ", g.rank,
               "): tensor of shape ", shape_str(t.shape()), " has dtype ", dtype_name(t.dtype()),
               "; supported: float32, float64, int32, int64 (cast first)");
  TANDEM_CHECK(op != ReduceOp::Mean || is_floating(t.dtype()), TypeError, "all_reduce (rank ",
               g.rank, "): ReduceOp.AVG needs a floating tensor, got ", dtype_name(t.dtype()),
               "; use SUM and divide, or cast to float32");
  auto lock = maybe_lock(g);
  g.agree("all_reduce", t, -1);
  TANDEM_CHECK(t.numel() <= INT32_MAX, ValueError, "all_reduce (rank ", g.rank, "): tensor of ",
               t.numel(), " elements exceeds MPI's int count; split it into chunks");
  if (t.numel() == 0) return;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, t.data_ptr(), int(t.numel()), type, mpi_op(op), g.comm),
            "all_reduce: MPI_Allreduce", g.rank);
  if (op == ReduceOp::Mean) {
    const int64_t n = t.numel();
    if (t.dtype() == DType::Float32) {
      float* p = t.data<float>();
      const float inv = 1.0f / float(g.size);
      for (int64_t i = 0; i < n; ++i) p[i] *= inv;
    } else {
      double* p = t.data<double>();
      for (int64_t i = 0; i < n; ++i) p[i] /= double(g.size);
    }
  }
  t.storage()->bump_version();
}

void ProcessGroup::broadcast(const Tensor& t, int src) {
  Impl& g = *impl_;
  g.check_tensor(t, "broadcast", "tensor");
  TANDEM_CHECK(src >= 0 && src < g.size, ValueError, "broadcast (rank ", g.rank, "): src ", src,
               " is not a rank of the group (world size ", g.size, ")");
  auto lock = maybe_lock(g);
  g.agree("broadcast", t, src);
  const int64_t bytes = t.numel() * int64_t(t.itemsize());
  TANDEM_CHECK(bytes <= INT32_MAX, ValueError, "broadcast (rank ", g.rank, "): tensor of ", bytes,
               " bytes exceeds MPI's int count; split it into chunks");
  if (bytes == 0) return;
  check_mpi(MPI_Bcast(t.data_ptr(), int(bytes), MPI_BYTE, src, g.comm), "broadcast: MPI_Bcast",
            g.rank);
  if (g.rank != src) t.storage()->bump_version();
}

void ProcessGroup::all_gather(const std::vector<Tensor>& outs, const Tensor& in) {
  Impl& g = *impl_;
  g.check_tensor(in, "all_gather", "tensor");
  TANDEM_CHECK(int64_t(outs.size()) == g.size, ValueError, "all_gather (rank ", g.rank,
               "): tensor_list has ", outs.size(), " tensors, the world size is ", g.size,
               "; pass one output tensor per rank");
  for (size_t r = 0; r < outs.size(); ++r) {
    g.check_tensor(outs[r], "all_gather", "tensor_list[i]");
    TANDEM_CHECK(outs[r].shape() == in.shape() && outs[r].dtype() == in.dtype(), ValueError,
                 "all_gather (rank ", g.rank, "): tensor_list[", r, "] has shape ",
                 shape_str(outs[r].shape()), " and dtype ", dtype_name(outs[r].dtype()),
                 ", the input has shape ", shape_str(in.shape()), " and dtype ",
                 dtype_name(in.dtype()), "; outputs must match the input");
  }
  auto lock = maybe_lock(g);
  g.agree("all_gather", in, -1);
  const int64_t bytes = in.numel() * int64_t(in.itemsize());
  TANDEM_CHECK(bytes * g.size <= INT32_MAX, ValueError, "all_gather (rank ", g.rank,
               "): gathering ", bytes * g.size,
               " bytes exceeds MPI's int count; split the tensor into chunks");
  if (bytes == 0) return;
  // One gather into a staging buffer: the outputs are separate allocations, and the input
  // may alias one of them.
  std::vector<char> staging(size_t(bytes * g.size));
  std::vector<char> send(static_cast<const char*>(in.data_ptr()),
                         static_cast<const char*>(in.data_ptr()) + bytes);
  check_mpi(MPI_Allgather(send.data(), int(bytes), MPI_BYTE, staging.data(), int(bytes), MPI_BYTE,
                          g.comm),
            "all_gather: MPI_Allgather", g.rank);
  for (size_t r = 0; r < outs.size(); ++r) {
    std::memcpy(outs[r].data_ptr(), staging.data() + r * size_t(bytes), size_t(bytes));
    outs[r].storage()->bump_version();
  }
}

void ProcessGroup::barrier() {
  Impl& g = *impl_;
  auto lock = maybe_lock(g);
  check_mpi(MPI_Barrier(g.comm), "barrier: MPI_Barrier", g.rank);
}

#endif

}  // namespace tandem
