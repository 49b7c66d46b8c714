// MPI implementation of ProcessGroup's set-up and collectives (point to point:
// process_group_p2p.cpp; builds without MPI: process_group_stubs.cpp). Each collective
// first agrees on (kind, numel, dtype, root, op) across ranks with one fixed-size
// MPI_Allreduce (agreement.h), so ranks that disagree all raise the same error instead of
// hanging or reading past a buffer; MPI errors come back as return codes (MPI_ERRORS_RETURN)
// and become DistributedError. The operations of a group run one at a time through its
// CommQueue, in the order this rank issued them.
#include "tandem/distributed/process_group.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "tandem/core/shape.h"
#include "tandem/distributed/agreement.h"
#include "tandem/distributed/comm_queue.h"

#ifdef TANDEM_HAVE_MPI
#include <dlfcn.h>

#include "tandem/distributed/process_group_mpi.h"
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

#ifdef TANDEM_HAVE_MPI

namespace {

std::mutex g_init_mutex;
bool g_we_initialized = false;
int g_thread_level = -1;
// Below MPI_THREAD_MULTIPLE, operations of different groups must not overlap.
std::mutex g_serial_mutex;

}  // namespace

namespace distributed {
void check_mpi(int rc, const std::string& what, int rank) {
  if (rc == MPI_SUCCESS) [[likely]]
    return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
  throw_error<DistributedError>(what, " (rank ", rank, "): MPI error ", rc, ": ",
                                std::string(msg, size_t(len)));
}

int granted_thread_level() {
  return g_thread_level;
}
std::mutex& serial_mutex() {
  return g_serial_mutex;
}
}  // namespace distributed

namespace {

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
    case DType::BFloat16:  // reduced in float32
    case DType::Float16:
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

bool is_half(DType dt) {
  return dt == DType::BFloat16 || dt == DType::Float16;
}

// 16-bit floats travel and reduce as float32 (no MPI type for them; float32 also keeps the
// sum of many ranks from losing the low bits).
std::vector<float> widen(const Tensor& t) {
  std::vector<float> out(size_t(t.numel()));
  const uint16_t* p = static_cast<const uint16_t*>(t.data_ptr());
  if (t.dtype() == DType::BFloat16)
    for (size_t i = 0; i < out.size(); ++i) out[i] = bf16_to_float(p[i]);
  else
    for (size_t i = 0; i < out.size(); ++i) out[i] = half_to_float(p[i]);
  return out;
}

void narrow(const std::vector<float>& v, const Tensor& t) {
  uint16_t* p = static_cast<uint16_t*>(t.data_ptr());
  if (t.dtype() == DType::BFloat16)
    for (size_t i = 0; i < v.size(); ++i) p[i] = float_to_bf16(v[i]);
  else
    for (size_t i = 0; i < v.size(); ++i) p[i] = float_to_half(v[i]);
}

void scale(void* data, DType dt, int64_t n, int ranks) {
  if (dt == DType::Float64) {
    double* p = static_cast<double*>(data);
    for (int64_t i = 0; i < n; ++i) p[i] /= double(ranks);
  } else {
    float* p = static_cast<float*>(data);
    const float inv = 1.0f / float(ranks);
    for (int64_t i = 0; i < n; ++i) p[i] *= inv;
  }
}

// Operation kinds, agreed on so that a rank running a different collective is caught.

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
  if (!finalized) {
    distributed::announce_exit();
    MPI_Finalize();
  }
  g_we_initialized = false;
}

void mpi_abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ProcessGroup::~ProcessGroup() {
  impl_->queue.reset();  // runs what is queued: its operations use the communicator
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
}

std::shared_ptr<ProcessGroup> ProcessGroup::world(double timeout_s) {
  ensure_initialized();
  distributed::open_exit_channel();
  auto impl = std::make_unique<Impl>();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &impl->comm), "init_process_group: MPI_Comm_dup", rank);
  MPI_Comm_set_errhandler(impl->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(impl->comm, &impl->rank);
  MPI_Comm_size(impl->comm, &impl->size);
  for (int r = 0; r < impl->size; ++r) impl->world_ranks.push_back(r);
  impl->timeout = timeout_s;
  impl->start_queue();
  return std::shared_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

std::shared_ptr<ProcessGroup> ProcessGroup::subgroup(const std::vector<int>& ranks) {
  Impl& g = *impl_;
  TANDEM_CHECK(!ranks.empty(), ValueError, "new_group (rank ", g.rank, "): ranks is empty");
  bool member = false;
  for (size_t i = 0; i < ranks.size(); ++i) {
    TANDEM_CHECK(ranks[i] >= 0 && ranks[i] < g.size, ValueError, "new_group (rank ", g.rank,
                 "): rank ", ranks[i], " is not in the parent group (size ", g.size, ")");
    TANDEM_CHECK(i == 0 || ranks[i] > ranks[i - 1], ValueError, "new_group (rank ", g.rank,
                 "): ranks must be distinct and sorted");
    member = member || ranks[i] == g.rank;
  }
  TANDEM_CHECK(member, ValueError, "new_group (rank ", g.rank,
               "): this rank is not one of the group's ranks; only members create the group");
  auto impl = std::make_unique<Impl>();
  impl->timeout = g.timeout;
  // The tag keeps concurrent creations of different groups apart.
  int tag = 0;
  for (int r : ranks) tag = (tag * 131 + r + 1) % 30000;
  g.queue->run("new_group", [&] {
    MPI_Group parent, sub;
    check_mpi(MPI_Comm_group(g.comm, &parent), "new_group: MPI_Comm_group", g.rank);
    check_mpi(MPI_Group_incl(parent, int(ranks.size()), ranks.data(), &sub),
              "new_group: MPI_Group_incl", g.rank);
    int rc = MPI_Comm_create_group(g.comm, sub, tag, &impl->comm);
    MPI_Group_free(&sub);
    MPI_Group_free(&parent);
    check_mpi(rc, "new_group: MPI_Comm_create_group", g.rank);
  });
  MPI_Comm_set_errhandler(impl->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(impl->comm, &impl->rank);
  MPI_Comm_size(impl->comm, &impl->size);
  for (int r : ranks) impl->world_ranks.push_back(g.world_ranks[size_t(r)]);
  impl->start_queue();
  return std::shared_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

int ProcessGroup::rank() const {
  return impl_->rank;
}
int ProcessGroup::size() const {
  return impl_->size;
}
const std::vector<int>& ProcessGroup::world_ranks() const {
  return impl_->world_ranks;
}
double ProcessGroup::timeout() const {
  return impl_->timeout;
}

namespace {
// A small all_reduce travels in the agreement record's payload: one round trip instead of
// two (the latency of small reductions is the agreement's cost otherwise).
void small_all_reduce(ProcessGroup::Impl& g, const Tensor& t, ReduceOp op) {
  using distributed::PayloadType;
  distributed::AgreementRecord rec;
  const int64_t n = t.numel();
  PayloadType type = PayloadType::F32;
  switch (t.dtype()) {
    case DType::Float64:
      type = PayloadType::F64;
      break;
    case DType::Int32:
      type = PayloadType::I32;
      break;
    case DType::Int64:
      type = PayloadType::I64;
      break;
    default:
      break;
  }
  if (is_half(t.dtype())) {
    std::vector<float> wide = widen(t);
    std::memcpy(rec.payload, wide.data(), wide.size() * sizeof(float));
  } else {
    std::memcpy(rec.payload, t.data_ptr(), size_t(n) * t.itemsize());
  }
  rec.set(distributed::Field::ReduceType, int64_t(type));
  g.agree(AllReduce, "all_reduce", &t, -1, int64_t(op), &rec);
  if (op == ReduceOp::Mean)
    scale(rec.payload, is_half(t.dtype()) ? DType::Float32 : t.dtype(), n, g.size);
  if (is_half(t.dtype())) {
    std::vector<float> wide(static_cast<size_t>(n));
    std::memcpy(wide.data(), rec.payload, wide.size() * sizeof(float));
    narrow(wide, t);
  } else {
    std::memcpy(t.data_ptr(), rec.payload, size_t(n) * t.itemsize());
  }
  t.storage()->bump_version();
}
}  // namespace

std::shared_ptr<Work> ProcessGroup::all_reduce(const Tensor& t, ReduceOp op, bool async_op) {
  Impl& g = *impl_;
  g.check_tensor(t, "all_reduce", "tensor");
  MPI_Datatype type = mpi_reduce_type(t.dtype());
  TANDEM_CHECK(type != MPI_DATATYPE_NULL, TypeError, "all_reduce (rank ", g.rank,
               "): tensor of shape ", shape_str(t.shape()), " has dtype ", dtype_name(t.dtype()),
               "; supported: float32, float64, bfloat16, float16, int32, int64 (cast first)");
  TANDEM_CHECK(op != ReduceOp::Mean || is_floating(t.dtype()), TypeError, "all_reduce (rank ",
               g.rank, "): ReduceOp.AVG needs a floating tensor, got ", dtype_name(t.dtype()),
               "; use SUM and divide, or cast to float32");
  TANDEM_CHECK(t.numel() <= INT32_MAX, ValueError, "all_reduce (rank ", g.rank, "): tensor of ",
               t.numel(), " elements exceeds MPI's int count; split it into chunks");
  return g.dispatch("all_reduce", &t, async_op, [&g, t, op, type] {
    const int64_t n = t.numel();
    const size_t wide_bytes = size_t(n) * (is_half(t.dtype()) ? sizeof(float) : t.itemsize());
    if (n > 0 && wide_bytes <= distributed::kSmallPayloadBytes) {
      small_all_reduce(g, t, op);
      return;
    }
    g.agree(AllReduce, "all_reduce", &t, -1, int64_t(op));
    if (n == 0) return;
    if (is_half(t.dtype())) {
      std::vector<float> wide = widen(t);
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, wide.data(), int(n), MPI_FLOAT, mpi_op(op), g.comm),
                "all_reduce: MPI_Allreduce", g.rank);
      if (op == ReduceOp::Mean) scale(wide.data(), DType::Float32, n, g.size);
      narrow(wide, t);
    } else {
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, t.data_ptr(), int(n), type, mpi_op(op), g.comm),
                "all_reduce: MPI_Allreduce", g.rank);
      if (op == ReduceOp::Mean) scale(t.data_ptr(), t.dtype(), n, g.size);
    }
    t.storage()->bump_version();
  });
}

std::shared_ptr<Work> ProcessGroup::broadcast(const Tensor& t, int src, bool async_op) {
  Impl& g = *impl_;
  g.check_tensor(t, "broadcast", "tensor");
  TANDEM_CHECK(src >= 0 && src < g.size, ValueError, "broadcast (rank ", g.rank, "): src ", src,
               " is not a rank of the group (group size ", g.size, ")");
  const int64_t bytes = t.numel() * int64_t(t.itemsize());
  TANDEM_CHECK(bytes <= INT32_MAX, ValueError, "broadcast (rank ", g.rank, "): tensor of ", bytes,
               " bytes exceeds MPI's int count; split it into chunks");
  return g.dispatch("broadcast", &t, async_op, [&g, t, src, bytes] {
    g.agree(Broadcast, "broadcast", &t, src);
    if (bytes == 0) return;
    check_mpi(MPI_Bcast(t.data_ptr(), int(bytes), MPI_BYTE, src, g.comm), "broadcast: MPI_Bcast",
              g.rank);
    if (g.rank != src) t.storage()->bump_version();
  });
}

std::shared_ptr<Work> ProcessGroup::all_gather(const std::vector<Tensor>& outs, const Tensor& in,
                                               bool async_op) {
  Impl& g = *impl_;
  g.check_tensor(in, "all_gather", "tensor");
  TANDEM_CHECK(int64_t(outs.size()) == g.size, ValueError, "all_gather (rank ", g.rank,
               "): tensor_list has ", outs.size(), " tensors, the group size is ", g.size,
               "; pass one output tensor per rank");
  for (size_t r = 0; r < outs.size(); ++r) {
    g.check_tensor(outs[r], "all_gather", "tensor_list[i]");
    TANDEM_CHECK(outs[r].shape() == in.shape() && outs[r].dtype() == in.dtype(), ValueError,
                 "all_gather (rank ", g.rank, "): tensor_list[", r, "] has shape ",
                 shape_str(outs[r].shape()), " and dtype ", dtype_name(outs[r].dtype()),
                 ", the input has shape ", shape_str(in.shape()), " and dtype ",
                 dtype_name(in.dtype()), "; outputs must match the input");
  }
  const int64_t bytes = in.numel() * int64_t(in.itemsize());
  TANDEM_CHECK(bytes * g.size <= INT32_MAX, ValueError, "all_gather (rank ", g.rank,
               "): gathering ", bytes * g.size,
               " bytes exceeds MPI's int count; split the tensor into chunks");
  return g.dispatch("all_gather", &in, async_op, [&g, outs, in, bytes] {
    g.agree(AllGather, "all_gather", &in, -1);
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
  });
}

std::shared_ptr<Work> ProcessGroup::reduce_scatter(const Tensor& out, const Tensor& in, ReduceOp op,
                                                   bool async_op) {
  Impl& g = *impl_;
  g.check_tensor(out, "reduce_scatter", "output");
  g.check_tensor(in, "reduce_scatter", "input");
  MPI_Datatype type = mpi_reduce_type(in.dtype());
  TANDEM_CHECK(type != MPI_DATATYPE_NULL, TypeError, "reduce_scatter (rank ", g.rank,
               "): input has dtype ", dtype_name(in.dtype()),
               "; supported: float32, float64, bfloat16, float16, int32, int64 (cast first)");
  TANDEM_CHECK(op != ReduceOp::Mean || is_floating(in.dtype()), TypeError, "reduce_scatter (rank ",
               g.rank, "): ReduceOp.AVG needs a floating tensor, got ", dtype_name(in.dtype()));
  TANDEM_CHECK(out.dtype() == in.dtype() && in.numel() == out.numel() * g.size, ValueError,
               "reduce_scatter (rank ", g.rank, "): input of shape ", shape_str(in.shape()), " (",
               dtype_name(in.dtype()), ") must hold ", g.size, " blocks of the output's ",
               out.numel(), " elements (", dtype_name(out.dtype()), "), one per rank");
  TANDEM_CHECK(in.numel() <= INT32_MAX, ValueError, "reduce_scatter (rank ", g.rank, "): input of ",
               in.numel(), " elements exceeds MPI's int count");
  return g.dispatch("reduce_scatter", &in, async_op, [&g, out, in, op, type] {
    g.agree(ReduceScatter, "reduce_scatter", &in, -1);
    const int64_t n = out.numel();
    if (n == 0) return;
    if (is_half(in.dtype())) {
      std::vector<float> wide = widen(in);
      std::vector<float> res(static_cast<size_t>(n));
      check_mpi(
          MPI_Reduce_scatter_block(wide.data(), res.data(), int(n), MPI_FLOAT, mpi_op(op), g.comm),
          "reduce_scatter: MPI_Reduce_scatter_block", g.rank);
      if (op == ReduceOp::Mean) scale(res.data(), DType::Float32, n, g.size);
      narrow(res, out);
    } else {
      // The input may alias the output: reduce from a copy.
      const size_t bytes = size_t(in.numel()) * in.itemsize();
      std::vector<char> src(static_cast<const char*>(in.data_ptr()),
                            static_cast<const char*>(in.data_ptr()) + bytes);
      check_mpi(
          MPI_Reduce_scatter_block(src.data(), out.data_ptr(), int(n), type, mpi_op(op), g.comm),
          "reduce_scatter: MPI_Reduce_scatter_block", g.rank);
      if (op == ReduceOp::Mean) scale(out.data_ptr(), out.dtype(), n, g.size);
    }
    out.storage()->bump_version();
  });
}

std::shared_ptr<Work> ProcessGroup::barrier(bool async_op) {
  Impl& g = *impl_;
  return g.dispatch("barrier", nullptr, async_op, [&g] {
    g.agree(Barrier, "barrier", nullptr, -1);
    check_mpi(MPI_Barrier(g.comm), "barrier: MPI_Barrier", g.rank);
  });
}

#endif

}  // namespace tandem
