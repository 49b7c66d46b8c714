// Update scheduling: the nodes that only feed write-backs (optimizer updates, running
// statistics) run as soon as their inputs exist instead of where the trace put them (after
// the whole backward pass), so each gradient dies right after its update. Together with the
// executor writing an update straight into its parameter (graph/cost.h, inplace_writebacks),
// a training step no longer holds every gradient and every new parameter value at once.
#include <algorithm>
#include <functional>

#include "tandem/graph/passes.h"

namespace tandem::graph {

void schedule_updates(Graph& g) {
  const size_t n = g.nodes.size();
  std::vector<int64_t> producer(g.values.size(), -1);
  std::vector<std::vector<size_t>> consumers(g.values.size());
  for (size_t i = 0; i < n; ++i) {
    for (int64_t o : g.nodes[i].outputs) producer[size_t(o)] = int64_t(i);
    for (int64_t v : g.nodes[i].inputs) consumers[size_t(v)].push_back(i);
  }
  std::vector<bool> is_output(g.values.size(), false), is_wb(g.values.size(), false);
  for (int64_t v : g.outputs) is_output[size_t(v)] = true;
  for (auto& w : g.writebacks) is_wb[size_t(w.second)] = true;

  // The cone: nodes all of whose results go only to write-backs or to other cone nodes. Stateful
  // nodes keep their place (moving them would reorder random draws).
  std::vector<bool> cone(n, false);
  for (size_t i = n; i-- > 0;) {
    const Node& nd = g.nodes[i];
    if (nd.op->stateful || nd.outputs.empty()) continue;
    bool ok = true, feeds = false;
    for (int64_t o : nd.outputs) {
      if (is_output[size_t(o)]) ok = false;
      feeds |= is_wb[size_t(o)];
      for (size_t c : consumers[size_t(o)]) {
        ok &= cone[c];
        feeds = true;
      }
    }
    cone[i] = ok && feeds;
  }
  // Of the cone, only the updates move: nodes reading a written-back tensor (parameter,
  // optimizer buffer, running statistic) or an update's result, and the views between
  // them. The backward pass is in the cone too, but running it early would compute, say,
  // relu masks during the forward pass and hold them until they are used.
  std::vector<bool> target(g.values.size(), false);
  for (auto& w : g.writebacks)
    for (auto& c : g.captures)
      if (c.second == w.first) target[size_t(c.first)] = true;
  std::vector<bool> update_value(g.values.size(), false);
  for (size_t i = 0; i < n; ++i) {
    const Node& nd = g.nodes[i];
    bool upd = nd.op->view;
    for (int64_t v : nd.inputs) upd |= target[size_t(v)] || update_value[size_t(v)];
    cone[i] = cone[i] && upd;
    if (cone[i])
      for (int64_t o : nd.outputs) update_value[size_t(o)] = true;
  }

  // A cone node is triggered by an input some other node produces; one that reads only
  // inputs and captures (say momentum * buffer) waits, lazily, for its first consumer.
  std::vector<bool> done(n, false), avail(g.values.size(), false);
  for (int64_t v : g.inputs) avail[size_t(v)] = true;
  for (auto& c : g.captures) avail[size_t(c.first)] = true;
  std::vector<bool> lazy(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (!cone[i]) continue;
    lazy[i] = std::all_of(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end(), [&](int64_t v) {
      int64_t p = producer[size_t(v)];
      return p < 0 || lazy[size_t(p)];
    });
  }
  // An update that overwrites a tensor also waits for the other readers of that tensor (a
  // convolution's backward-data reads the weight the update replaces, maybe through a view):
  // then it can write in place (inplace_writebacks) instead of into a new buffer.
  std::vector<int64_t> owner(g.values.size());
  for (size_t v = 0; v < owner.size(); ++v) owner[v] = int64_t(v);
  for (const Node& nd : g.nodes)
    if (nd.op->view)
      for (int64_t o : nd.outputs) owner[size_t(o)] = owner[size_t(nd.inputs[0])];
  std::vector<int> pending(g.values.size(), 0);  // unscheduled non-cone reads of a target
  for (size_t i = 0; i < n; ++i)
    if (!cone[i])
      for (int64_t v : g.nodes[i].inputs)
        if (target[size_t(owner[size_t(v)])]) pending[size_t(owner[size_t(v)])]++;

  std::vector<size_t> order;
  order.reserve(n);
  std::function<void(size_t)> emit = [&](size_t i) {
    if (done[i]) return;
    if (!cone[i])
      for (int64_t v : g.nodes[i].inputs)
        if (target[size_t(owner[size_t(v)])]) pending[size_t(owner[size_t(v)])]--;
    for (int64_t v : g.nodes[i].inputs) {
      int64_t p = producer[size_t(v)];
      if (p >= 0 && lazy[size_t(p)]) emit(size_t(p));
    }
    done[i] = true;
    order.push_back(i);
    for (int64_t o : g.nodes[i].outputs) avail[size_t(o)] = true;
  };
  auto ready = [&](size_t i) {
    for (int64_t v : g.nodes[i].inputs) {
      int64_t p = producer[size_t(v)];
      if (!avail[size_t(v)] && !(p >= 0 && lazy[size_t(p)])) return false;
      if (target[size_t(v)] && pending[size_t(v)] > 0) return false;
    }
    return true;
  };
  std::vector<size_t> work;
  for (size_t i = 0; i < n; ++i) {
    if (cone[i]) continue;
    emit(i);
    work.assign(1, i);
    // Cone nodes this node made ready: consumers of its results, and updates of a tensor
    // it was the last reader of.
    std::vector<int64_t> freed;
    for (int64_t v : g.nodes[i].inputs) {
      int64_t c = owner[size_t(v)];
      if (target[size_t(c)] && pending[size_t(c)] == 0) freed.push_back(c);
    }
    for (int64_t c : freed)
      for (size_t u : consumers[size_t(c)])
        if (cone[u] && !lazy[u] && !done[u] && ready(u)) {
          emit(u);
          work.push_back(u);
        }
    while (!work.empty()) {  // cone nodes that these results make ready, transitively
      size_t j = work.back();
      work.pop_back();
      for (int64_t o : g.nodes[j].outputs)
        for (size_t c : consumers[size_t(o)])
          if (cone[c] && !lazy[c] && !done[c] && ready(c)) {
            emit(c);
            work.push_back(c);
          }
    }
  }
  for (size_t i = 0; i < n; ++i) emit(i);  // whatever is left (lazy nodes no one consumed)

  std::vector<Node> nodes;
  nodes.reserve(n);
  for (size_t i : order) nodes.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(nodes);
}

}  // namespace tandem::graph
