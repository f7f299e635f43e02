// LMCache's read-context pairing (docs/trace-format.md §6.1): a read_prefetched_results
// __exit__ closes the oldest open __enter__ whose key tuple equals its own (FIFO per exact
// tuple), and contexts still open at the end are closed in the order their tuple was first
// opened, FIFO within it. The replay dispatcher pairs the engine's read contexts with it;
// `lct lint` pairs the records' offsets with the same rule.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fleet/trace/types.h"

namespace fleet::trace {

// Inline: the dispatcher hashes every __enter__'s and __exit__'s tuple.
struct KeyTupleHash {
  size_t operator()(const std::vector<ObjectKey>& keys) const noexcept {
    ObjectKeyHash h;
    size_t acc = keys.size();
    for (const auto& k : keys) acc = acc * 0x100000001b3ull ^ h(k);
    return acc;
  }
};

// Context: any type with a `keys` member, the tuple it was opened with.
template <class Context>
class ReadPairing {
 public:
  void open(const std::vector<ObjectKey>& keys, Context&& ctx) {
    auto [it, inserted] = open_.try_emplace(KeyTupleHash{}(keys));
    if (inserted) it->second.seq = next_seq_++;
    it->second.queue.push_back(std::move(ctx));
    ++count_;
  }

  // Moves the oldest open context of exactly `keys` into `out` and forgets it; false (and `out`
  // untouched) when no such context is open.
  bool close(const std::vector<ObjectKey>& keys, Context& out) {
    auto it = open_.find(KeyTupleHash{}(keys));
    if (it == open_.end()) return false;
    auto& q = it->second.queue;
    auto match = std::find_if(q.begin(), q.end(), [&](const Context& c) { return c.keys == keys; });
    if (match == q.end()) return false;
    out = std::move(*match);
    q.erase(match);
    if (q.empty()) open_.erase(it);
    --count_;
    return true;
  }

  // Hands every context still open to `f` in the closing order above; the pairing is then
  // empty.
  template <class F>
  void close_all(F&& f) {
    std::vector<OpenTuple*> order;
    for (auto& [hash, entry] : open_) order.push_back(&entry);
    std::sort(order.begin(), order.end(),
              [](const OpenTuple* a, const OpenTuple* b) { return a->seq < b->seq; });
    for (OpenTuple* entry : order)
      for (Context& ctx : entry->queue) f(ctx);
    open_.clear();
    count_ = 0;
  }

  size_t size() const { return count_; }

 private:
  // Open contexts grouped by the hash of their key tuple (no tuple copy to look one up); two
  // tuples that share a hash share a group, and close() compares the keys. `seq` orders groups
  // by first insertion for close_all; emptied groups are erased so memory follows the open
  // contexts, not the trace.
  struct OpenTuple {
    uint64_t seq = 0;
    std::vector<Context> queue;  // FIFO; almost always one context
  };
  std::unordered_map<uint64_t, OpenTuple> open_;
  uint64_t next_seq_ = 0;
  size_t count_ = 0;
};

}  // namespace fleet::trace
