// The static memory plan of a compiled graph: the node outputs that live in one arena per
// run, at byte offsets fixed at compile time (liveness intervals packed first-fit, largest
// first), so a run makes one allocation instead of one per kernel. Elementwise outputs take
// the slot of an input that dies there. Graph outputs, write-back values and buffers that a
// view of them aliases outlive the run and are allocated on their own, as are bases of
// as_strided (its offset is absolute); an update written into its captured tensor needs no
// memory.
#pragma once
#include <string>

#include "tandem/graph/ir.h"

namespace tandem::graph {

struct MemoryPlan {
  std::vector<int64_t> offset;  // per value: byte offset in the arena, or -1 (not in it)
  int64_t arena_bytes = 0;
  int64_t num_arena_values = 0;  // node outputs placed in the arena
  int64_t sum_bytes = 0;         // their sizes added up (what no reuse would need)
};

// "arena 12.3 MB for 40 intermediates (58.0 MB without reuse)", or "" without an arena.
std::string arena_str(const MemoryPlan& p);

// donors / into_capture: per value, as inplace_donors / inplace_writebacks return them.
MemoryPlan plan_memory(const Graph& g, const std::vector<int64_t>& donors,
                       const std::vector<int64_t>& into_capture);

}  // namespace tandem::graph
