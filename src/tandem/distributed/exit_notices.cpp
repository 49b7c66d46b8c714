// Exit notices between ranks (see exit_notices.h).
#ifdef TANDEM_HAVE_MPI
#include "tandem/distributed/exit_notices.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "tandem/distributed/process_group_mpi.h"

namespace tandem::distributed {

namespace {

constexpr int kNoticeTag = 7301;
// A notice: the number of (group key, collectives started) pairs, then the pairs. Groups past
// the limit are left out, and a group missing from a notice is never judged.
constexpr int kMaxGroups = 64;
constexpr int kNoticeLen = 1 + 2 * kMaxGroups;

std::mutex g_mutex;  // everything below
MPI_Comm g_channel = MPI_COMM_NULL;
int g_world_rank = 0, g_world_size = 1;
std::map<int64_t, std::atomic<int64_t>> g_counters;
std::map<std::vector<int>, int64_t> g_groups_created;
// world rank -> (group key -> collectives it started), for the ranks that have exited.
std::map<int, std::map<int64_t, int64_t>> g_exited;

// Receives the notices that have arrived (g_mutex held).
void poll_locked() {
  if (g_channel == MPI_COMM_NULL) return;
  for (;;) {
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kNoticeTag, g_channel, &flag, &status) != MPI_SUCCESS || !flag)
      return;
    int64_t buf[kNoticeLen] = {};
    if (MPI_Recv(buf, kNoticeLen, MPI_INT64_T, status.MPI_SOURCE, kNoticeTag, g_channel,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return;
    auto& counts = g_exited[status.MPI_SOURCE];
    const int64_t pairs = std::min<int64_t>(buf[0], kMaxGroups);
    for (int64_t i = 0; i < pairs; ++i) counts[buf[1 + 2 * i]] = buf[2 + 2 * i];
  }
}

}  // namespace

int64_t group_key(const std::vector<int>& world_ranks) {
  std::lock_guard<std::mutex> lock(g_mutex);
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the members, then the occurrence
  for (int r : world_ranks) h = (h ^ uint64_t(uint32_t(r))) * 1099511628211ull;
  h = (h ^ uint64_t(g_groups_created[world_ranks]++)) * 1099511628211ull;
  return int64_t(h >> 1);
}

std::atomic<int64_t>* collective_counter(int64_t key) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return &g_counters[key];
}

void open_exit_channel() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_channel != MPI_COMM_NULL) return;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world_size);
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &g_channel), "init_process_group: MPI_Comm_dup",
            g_world_rank);
  MPI_Comm_set_errhandler(g_channel, MPI_ERRORS_RETURN);
}

void check_exited_peers(int64_t key, const std::vector<int>& world_ranks, int64_t started,
                        const std::string& what) {
  if (granted_thread_level() < MPI_THREAD_MULTIPLE) return;
  int left = -1;
  int64_t done = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    poll_locked();
    for (int r : world_ranks) {
      auto peer = g_exited.find(r);
      if (peer == g_exited.end()) continue;
      auto count = peer->second.find(key);
      if (count != peer->second.end() && count->second < started) {
        left = r;
        done = count->second;
        break;
      }
    }
  }
  if (left < 0) return;
  std::fprintf(stderr,
               "tandem.distributed: rank %d: %s can never complete: rank %d has exited after "
               "%lld collective(s) on this group, and this is collective %lld. Every rank must "
               "run the same collectives; a rank that ends early (sys.exit, an early return) "
               "leaves the others waiting. Aborting the job.\n",
               g_world_rank, what.c_str(), left, static_cast<long long>(done),
               static_cast<long long>(started));
  mpi_abort(1);
}

void announce_exit() {
  std::unique_lock<std::mutex> lock(g_mutex);
  if (g_channel == MPI_COMM_NULL) return;
  if (g_world_size > 1) {
    int64_t notice[kNoticeLen] = {};
    for (auto& [key, count] : g_counters) {
      if (notice[0] == kMaxGroups) break;
      notice[1 + 2 * notice[0]] = key;
      notice[2 + 2 * notice[0]] = count.load();
      ++notice[0];
    }
    std::vector<MPI_Request> sends;
    for (int r = 0; r < g_world_size; ++r) {
      if (r == g_world_rank) continue;
      sends.emplace_back();
      MPI_Isend(notice, kNoticeLen, MPI_INT64_T, r, kNoticeTag, g_channel, &sends.back());
    }
    // Every other rank's notice: it arrives when that rank exits. A rank still waiting for
    // this one in a collective reads this rank's notice and ends the job instead.
    for (int polls = 0; int(g_exited.size()) < g_world_size - 1; ++polls) {
      poll_locked();
      if (int(g_exited.size()) >= g_world_size - 1) break;
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(polls < 1000 ? 20 : 2000));
      lock.lock();
    }
    MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  }
  MPI_Comm_free(&g_channel);
  g_channel = MPI_COMM_NULL;
}

}  // namespace tandem::distributed
#endif
