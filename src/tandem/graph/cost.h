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

// Per value: for a node output, an input value whose buffer it may overwrite, else -1. The
// node is elementwise (fused programs included: their outputs written before the program's
// last read of that input are excluded), and the input is a kernel output (not an input,
// capture or view) of the same shape and dtype whose last use is this node. Distinct
// outputs get distinct donors. The executor still checks at run time that no view shares
// the buffer.
std::vector<int64_t> inplace_donors(const Graph& g);

// Per value: for a node output, the captured value whose tensor it may be written into
// instead of a new buffer, else -1: the node is elementwise, the output is written back to
// that captured tensor, the node reads the tensor, and no later node reads its old value
// (an optimizer update right after its gradient). The executor checks aliasing at run time.
std::vector<int64_t> inplace_writebacks(const Graph& g);

// Walks the nodes in order; an input used twice by one node is read once, views move
// nothing, and a value is freed after its last use unless it is a graph output. With
// `inplace`, outputs reuse donor buffers as the executor does (the compiled plan's peak).
CostReport estimate_cost(const Graph& g, bool inplace = false);
// "3 kernels, 5 array passes, 12.0 MB moved, peak 8.0 MB".
std::string cost_str(const CostReport& c);

}  // namespace tandem::graph
