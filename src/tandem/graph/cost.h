// A static cost model of a graph, for explain(): how many kernels run, how many whole-array
// reads and writes they make, the bytes those move, and the peak bytes of buffers the graph
// allocates (its inputs and captured tensors exist anyway and are not counted).
#pragma once
#include <cstdint>
#include <string>

#include "tandem/graph/ir.h"

namespace tandem::graph {

struct CostReport {
  int64_t kernels = 0;       // non-view op calls
  int64_t array_passes = 0;  // reads + writes of tensors with more than one element
  int64_t bytes_moved = 0;   // bytes read + written by the kernels
  int64_t peak_bytes = 0;    // most bytes of graph-allocated buffers alive at once
};

// For each node, a value its output may overwrite, else -1: the node is elementwise with one
// output, and the value is a kernel output (not an input, capture or view) of the same shape
// and dtype whose last use is this node. The executor still checks at run time that no view
// shares the buffer.
std::vector<int64_t> inplace_donors(const Graph& g);

// For each node, the captured value whose tensor the node may write its result into instead
// of a new buffer, else -1: the node is elementwise, its result is written back to that
// captured tensor, it reads the tensor, and no later node reads the tensor's old value (an
// optimizer update right after its gradient). The executor checks aliasing at run time.
std::vector<int64_t> inplace_writebacks(const Graph& g);

// Walks the nodes in order; an input used twice by one node is read once, views move
// nothing, and a value is freed after its last use unless it is a graph output. With
// `inplace`, outputs reuse donor buffers as the executor does (the compiled plan's peak).
CostReport estimate_cost(const Graph& g, bool inplace = false);
// "3 kernels, 5 array passes, 12.0 MB moved, peak 8.0 MB".
std::string cost_str(const CostReport& c);

}  // namespace tandem::graph
