// The collective OpDefs (see collective_ops.h). Their kernels call the group synchronously:
// inside a compiled graph the node runs when the executor reaches it.
#include "tandem/distributed/collective_ops.h"

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "tandem/core/shape.h"
#include "tandem/distributed/comm_queue.h"
#include "tandem/ops/dispatch.h"
#include "tandem/ops/op_def.h"

namespace tandem {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
// Groups stay registered until the process group is destroyed: a compiled graph may name one
// long after the Python object that created it is gone. Ids are never reused, so a graph
// compiled before destroy_process_group fails clearly afterwards instead of reaching a newer
// group.
struct Registry {
  std::map<int64_t, std::shared_ptr<ProcessGroup>> groups;
  int64_t next_id = 0;
};
Registry& registry() {
  static Registry r;
  return r;
}

std::shared_ptr<ProcessGroup> group_of(const Attrs& attrs, const char* op) {
  const int64_t id = attrs.get_int_or("group", -1);
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().groups.find(id);
  TANDEM_CHECK(it != registry().groups.end(), DistributedError, op,
               ": the graph names process group ", id,
               ", which does not exist in this process (never created, or destroyed by "
               "destroy_process_group since the graph was compiled); create the groups "
               "(init_process_group, new_group) and compile the function again");
  return it->second;
}

std::vector<TensorMeta> same_meta(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  return {{in[0].shape(), in[0].dtype()}};
}

std::vector<TensorMeta> all_reduce_infer(const OpDef& op, const std::vector<Tensor>& in,
                                         const Attrs& attrs) {
  const DType dt = in[0].dtype();
  TANDEM_CHECK(dt == DType::Float32 || dt == DType::Float64 || dt == DType::BFloat16 ||
                   dt == DType::Float16 || dt == DType::Int32 || dt == DType::Int64,
               TypeError, "all_reduce: tensor of shape ", shape_str(in[0].shape()), " has dtype ",
               dtype_name(dt),
               "; supported: float32, float64, bfloat16, float16, int32, int64 (cast first)");
  const auto rop = ReduceOp(attrs.get_int_or("op", 0));
  TANDEM_CHECK(rop != ReduceOp::Mean || is_floating(dt), TypeError,
               "all_reduce: ReduceOp.AVG needs a floating tensor, got ", dtype_name(dt));
  return same_meta(op, in, attrs);
}

void copy_into(const Tensor& from, const Tensor& to) {
  Tensor src = from.contiguous();
  std::memcpy(to.data_ptr(), src.data_ptr(), size_t(src.numel()) * src.itemsize());
}

void all_reduce_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                       const Attrs& attrs) {
  copy_into(in[0], out[0]);
  group_of(attrs, "all_reduce")->all_reduce(out[0], ReduceOp(attrs.get_int_or("op", 0)));
}

void broadcast_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                      const Attrs& attrs) {
  copy_into(in[0], out[0]);
  group_of(attrs, "broadcast")->broadcast(out[0], int(attrs.get_int_or("src", 0)));
}

std::vector<TensorMeta> all_gather_infer(const OpDef&, const std::vector<Tensor>& in,
                                         const Attrs& attrs) {
  TANDEM_CHECK(in[0].dim() >= 1, ValueError,
               "all_gather: the input must have at least one dim (the results are concatenated "
               "along dim 0), got a 0-d tensor");
  Shape s = in[0].shape();
  s[0] *= attrs.get_int_or("size", 1);
  return {{s, in[0].dtype()}};
}

void all_gather_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                       const Attrs& attrs) {
  auto g = group_of(attrs, "all_gather");
  Tensor x = in[0].contiguous();
  const size_t bytes = size_t(x.numel()) * x.itemsize();
  std::vector<Tensor> parts;
  for (int r = 0; r < g->size(); ++r) parts.push_back(Tensor::empty(x.shape(), x.dtype()));
  g->all_gather(parts, x);
  char* dst = static_cast<char*>(out[0].data_ptr());
  for (int r = 0; r < g->size(); ++r)
    std::memcpy(dst + size_t(r) * bytes, parts[size_t(r)].data_ptr(), bytes);
}

// all_reduce split in two for compiled data-parallel steps: the start node hands the
// reduction to the group's communication thread and returns at once, so the backward pass
// goes on computing while it runs; the wait node, placed where the result is first needed
// (the optimizer update of that bucket), blocks until it is done. The running operations
// are found by the address of the buffer the start node filled (its output, which the wait
// node reads, so the memory plan keeps it alive in between).
std::mutex& pending_mutex() {
  static std::mutex m;
  return m;
}
std::map<const void*, std::shared_ptr<Work>>& pending() {
  static std::map<const void*, std::shared_ptr<Work>> p;
  return p;
}

void all_reduce_start_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                             const Attrs& attrs) {
  if (in[0].data_ptr() != out[0].data_ptr()) copy_into(in[0], out[0]);
  auto g = group_of(attrs, "all_reduce");
  const auto op = ReduceOp(attrs.get_int_or("op", 0));
  if (out[0].numel() == 0) {  // no buffer to name it by: done now (the ranks still agree)
    g->all_reduce(out[0], op);
    return;
  }
  // The handle holds out[0] (its storage) until the reduction has run, even if the graph
  // run that started it fails first.
  auto work = g->all_reduce(out[0], op, /*async_op=*/true);
  std::lock_guard<std::mutex> lock(pending_mutex());
  pending()[out[0].data_ptr()] = std::move(work);
}

void all_reduce_wait_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                            const Attrs&) {
  if (in[0].numel() == 0) return;
  std::shared_ptr<Work> work;
  {
    std::lock_guard<std::mutex> lock(pending_mutex());
    auto it = pending().find(in[0].data_ptr());
    TANDEM_CHECK(it != pending().end(), DistributedError,
                 "all_reduce_wait: its input is not the result of an all_reduce_start that is "
                 "still running (each started reduction is waited for once)");
    work = std::move(it->second);
    pending().erase(it);
  }
  work->wait();
  if (in[0].data_ptr() != out[0].data_ptr()) copy_into(in[0], out[0]);
}

const OpDef all_reduce_op = make_op("all_reduce", all_reduce_infer, all_reduce_kernel);
const OpDef all_reduce_start_op =
    make_op("all_reduce_start", all_reduce_infer, all_reduce_start_kernel);
const OpDef all_reduce_wait_op = make_op("all_reduce_wait", same_meta, all_reduce_wait_kernel);
const OpDef broadcast_op = make_op("broadcast", same_meta, broadcast_kernel);
const OpDef all_gather_op = make_op("all_gather", all_gather_infer, all_gather_kernel);

// y = reduce_r x_r over ranks, and every rank's loss sees every y: dL/dx_r is the same
// reduction of the ranks' incoming gradients (Sum: sum; Mean: mean).
std::vector<Tensor> all_reduce_vjp(const VjpCtx& ctx, const std::vector<Tensor>& grads) {
  const auto rop = ReduceOp(ctx.attrs.get_int_or("op", 0));
  TANDEM_CHECK(rop == ReduceOp::Sum || rop == ReduceOp::Mean, NotImplementedError,
               "all_reduce: the gradient of ReduceOp.", reduce_op_name(rop),
               " is not implemented (only SUM and AVG are differentiable)");
  return {dispatch1(all_reduce_op, {grads[0]}, ctx.attrs)};
}

TANDEM_REGISTER_OP(all_reduce_op)
TANDEM_STATEFUL(all_reduce_op)
TANDEM_DEFINE_VJP(all_reduce_op, all_reduce_vjp)
TANDEM_REGISTER_OP(all_reduce_start_op)
TANDEM_STATEFUL(all_reduce_start_op)
TANDEM_NOT_DIFFERENTIABLE(all_reduce_start_op)
// Stateful as well: it must run in every call, and no pass may merge two waits.
TANDEM_REGISTER_OP(all_reduce_wait_op)
TANDEM_STATEFUL(all_reduce_wait_op)
TANDEM_NOT_DIFFERENTIABLE(all_reduce_wait_op)
TANDEM_REGISTER_OP(broadcast_op)
TANDEM_STATEFUL(broadcast_op)
TANDEM_NOT_DIFFERENTIABLE(broadcast_op)
TANDEM_REGISTER_OP(all_gather_op)
TANDEM_STATEFUL(all_gather_op)
TANDEM_NOT_DIFFERENTIABLE(all_gather_op)

}  // namespace

int64_t collective_group_id(const std::shared_ptr<ProcessGroup>& g) {
  TANDEM_CHECK(g != nullptr, ValueError, "collective: no process group");
  std::lock_guard<std::mutex> lock(registry_mutex());
  Registry& r = registry();
  for (const auto& [id, group] : r.groups)
    if (group == g) return id;
  r.groups.emplace(r.next_id, g);
  return r.next_id++;
}

void release_collective_groups() {
  std::map<int64_t, std::shared_ptr<ProcessGroup>> gone;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    gone.swap(registry().groups);
  }
  // The groups are destroyed here, outside the lock: destruction drains their queues.
}

Tensor all_reduce_value(const Tensor& x, ReduceOp op, const std::shared_ptr<ProcessGroup>& g) {
  return dispatch1(all_reduce_op, {x}, {{"op", int64_t(op)}, {"group", collective_group_id(g)}});
}

Tensor all_reduce_start(const Tensor& x, ReduceOp op, const std::shared_ptr<ProcessGroup>& g) {
  return dispatch1(all_reduce_start_op, {x},
                   {{"op", int64_t(op)}, {"group", collective_group_id(g)}});
}

Tensor all_reduce_wait(const Tensor& started) {
  return dispatch1(all_reduce_wait_op, {started}, {});
}

Tensor broadcast_value(const Tensor& x, int src, const std::shared_ptr<ProcessGroup>& g) {
  TANDEM_CHECK(src >= 0 && src < g->size(), ValueError, "broadcast (rank ", g->rank(), "): src ",
               src, " is not a rank of the group (group size ", g->size(), ")");
  return dispatch1(broadcast_op, {x}, {{"src", int64_t(src)}, {"group", collective_group_id(g)}});
}

Tensor all_gather_value(const Tensor& x, const std::shared_ptr<ProcessGroup>& g) {
  return dispatch1(all_gather_op, {x},
                   {{"size", int64_t(g->size())}, {"group", collective_group_id(g)}});
}

}  // namespace tandem
