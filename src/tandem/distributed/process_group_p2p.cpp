// Point-to-point operations of ProcessGroup (MPI builds).
#ifdef TANDEM_HAVE_MPI
#include <cstring>

#include "tandem/distributed/process_group_mpi.h"

namespace tandem {

namespace {
// A point-to-point message: this header, then the tensor's bytes, in one MPI message, so a
// receiver can check the count and dtype before it writes into its tensor.
struct P2PHeader {
  int64_t numel;
  int64_t dtype;
};
}  // namespace

// Point-to-point operations are nonblocking MPI requests, posted in program order through
// the queue (so they stay ordered with the collectives) and completed by polling: a blocking
// receive on the communication thread would stall every operation queued behind it, and
// an irecv posted before the matching isend of the same rank would deadlock.
std::shared_ptr<Work> ProcessGroup::Impl::post_p2p(std::string desc, bool async_op,
                                                   const std::function<MPI_Request()>& post,
                                                   std::function<int(const MPI_Status&)> complete) {
  auto request = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
  queue->run(desc, [&] {
    std::unique_lock<std::mutex> lock;
    if (distributed::granted_thread_level() < MPI_THREAD_MULTIPLE)
      lock = std::unique_lock<std::mutex>(distributed::serial_mutex());
    *request = post();
  });
  auto work = std::make_shared<Work>(desc);
  const int me = rank;
  work->set_poll(
      [request, complete = std::move(complete), desc, me]() -> int {
        std::unique_lock<std::mutex> lock;
        if (distributed::granted_thread_level() < MPI_THREAD_MULTIPLE)
          lock = std::unique_lock<std::mutex>(distributed::serial_mutex());
        int flag = 0;
        MPI_Status status;
        check_mpi(MPI_Test(request.get(), &flag, &status), desc + ": MPI_Test", me);
        if (!flag) return Work::kPending;
        lock = std::unique_lock<std::mutex>();
        return complete(status);
      },
      timeout, timeout_handler());
  if (!async_op) work->wait();
  return work;
}

std::shared_ptr<Work> ProcessGroup::send(const Tensor& t, int dst, int tag, bool async_op) {
  Impl& g = *impl_;
  g.check_tensor(t, "send", "tensor");
  TANDEM_CHECK(dst >= 0 && dst < g.size && dst != g.rank, ValueError, "send (rank ", g.rank,
               "): dst ", dst, " must be another rank of the group (size ", g.size, ")");
  TANDEM_CHECK(tag >= 0 && tag <= 32767, ValueError, "send (rank ", g.rank, "): tag ", tag,
               " must be in [0, 32767]");
  const size_t bytes = size_t(t.numel()) * t.itemsize();
  TANDEM_CHECK(bytes + sizeof(P2PHeader) <= size_t(INT32_MAX), ValueError, "send (rank ", g.rank,
               "): tensor of ", bytes, " bytes exceeds MPI's int count");
  // The message is staged (header + bytes), so the tensor may change as soon as send returns.
  auto msg = std::make_shared<std::vector<char> >(sizeof(P2PHeader) + bytes);
  P2PHeader h{t.numel(), int64_t(t.dtype())};
  std::memcpy(msg->data(), &h, sizeof h);
  if (bytes) std::memcpy(msg->data() + sizeof h, t.data_ptr(), bytes);
  return g.post_p2p(
      describe("send", t) + detail::cat(" to rank ", dst), async_op,
      [&] {
        MPI_Request r;
        check_mpi(MPI_Isend(msg->data(), int(msg->size()), MPI_BYTE, dst, tag, g.comm, &r),
                  "send: MPI_Isend", g.rank);
        return r;
      },
      [msg](const MPI_Status&) { return -1; });
}

std::shared_ptr<Work> ProcessGroup::recv(const Tensor& t, int src, int tag, bool async_op) {
  Impl& g = *impl_;
  g.check_tensor(t, "recv", "tensor");
  TANDEM_CHECK(src == -1 || (src >= 0 && src < g.size && src != g.rank), ValueError, "recv (rank ",
               g.rank, "): src ", src, " must be another rank of the group (size ", g.size,
               ") or None for any");
  TANDEM_CHECK(tag >= 0 && tag <= 32767, ValueError, "recv (rank ", g.rank, "): tag ", tag,
               " must be in [0, 32767]");
  const size_t bytes = size_t(t.numel()) * t.itemsize();
  TANDEM_CHECK(bytes + sizeof(P2PHeader) < size_t(INT32_MAX), ValueError, "recv (rank ", g.rank,
               "): tensor of ", bytes, " bytes exceeds MPI's int count");
  std::string desc =
      describe("recv", t) + (src >= 0 ? detail::cat(" from rank ", src) : " from any rank");
  // One spare byte: a longer message then arrives as a size mismatch, not a truncation.
  auto msg = std::make_shared<std::vector<char> >(sizeof(P2PHeader) + bytes + 1);
  const int me = g.rank;
  auto work = g.post_p2p(
      desc, true,
      [&] {
        MPI_Request r;
        check_mpi(MPI_Irecv(msg->data(), int(msg->size()), MPI_BYTE, src < 0 ? MPI_ANY_SOURCE : src,
                            tag, g.comm, &r),
                  "recv: MPI_Irecv", g.rank);
        return r;
      },
      [msg, t, me, bytes](const MPI_Status& status) {
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        P2PHeader h{-1, -1};
        if (size_t(count) >= sizeof h) std::memcpy(&h, msg->data(), sizeof h);
        TANDEM_CHECK(h.numel == t.numel() && h.dtype == int64_t(t.dtype()) &&
                         size_t(count) == sizeof h + bytes,
                     DistributedError, "recv (rank ", me, "): rank ", status.MPI_SOURCE, " sent ",
                     h.numel, " elements of ",
                     h.dtype >= 0 && h.dtype <= int64_t(DType::Float64) ? dtype_name(DType(h.dtype))
                                                                        : "an unknown dtype",
                     ", this rank receives into a tensor of shape ", shape_str(t.shape()), " (",
                     dtype_name(t.dtype()),
                     "); send and recv must use tensors of the same size and dtype");
        if (bytes) std::memcpy(t.data_ptr(), msg->data() + sizeof h, bytes);
        t.storage()->bump_version();
        return status.MPI_SOURCE;
      });
  if (!async_op) work->wait();
  return work;
}

}  // namespace tandem
#endif
