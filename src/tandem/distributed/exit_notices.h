// Internal to src/tandem/distributed (MPI builds): how a rank learns that a peer has exited
// while it still waits for that peer in a collective. A rank that exits with its process group
// alive (sys.exit, the end of the script on one rank only) would otherwise leave the others
// blocked until the watchdog's timeout (30 minutes by default): MPI_Finalize on the exiting
// rank waits for them, and they wait for it.
//
// At exit each rank sends every other rank a notice holding how many collectives it started
// on each of its groups, on a communicator of its own. The watchdog of a group that is
// running a collective reads the notices; when a member has exited after fewer collectives on
// this group than this rank has started, the running one can never complete, and the job ends
// at once with a message saying which rank left and where.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace tandem::distributed {

// A group's identity, equal on every member: its members' world ranks, and how many groups of
// the same members this rank created before it (members create their groups in one order).
int64_t group_key(const std::vector<int>& world_ranks);
// The count of collectives this rank has started on the group `key`; it lives until the
// process exits, since the notice reports it after the group is destroyed.
std::atomic<int64_t>* collective_counter(int64_t key);
// Opens the notice channel (a duplicate of MPI_COMM_WORLD). Collective: every rank calls it
// when it creates its world group; later calls do nothing.
void open_exit_channel();
// Ends the job (a message, then MPI_Abort) when a member of the group has exited after fewer
// than `started` collectives on it, so that `what`, this rank's collective number `started`,
// can never complete. Safe on the watchdog thread while a collective blocks another thread
// (does nothing below MPI_THREAD_MULTIPLE).
void check_exited_peers(int64_t key, const std::vector<int>& world_ranks, int64_t started,
                        const std::string& what);
// Sends this rank's notice to every other rank, then waits for theirs (MPI_Finalize would wait
// for them anyway), so no notice is left unreceived; closes the channel. Called once at exit,
// after the groups are destroyed, before MPI_Finalize.
void announce_exit();

}  // namespace tandem::distributed
