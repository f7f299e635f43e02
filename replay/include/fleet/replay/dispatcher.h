// Typed op -> engine call, with LMCache's dispatcher rules (docs/trace-format.md §6.1):
// read_prefetched_results __enter__/__exit__ paired FIFO per exact key tuple, an __exit__ with
// no open __enter__ is a warning that still counts as replayed, and contexts still open at the
// end are closed (insertion order, FIFO within a tuple) without being counted or timed.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleet/engine/engine.h"
#include "fleet/trace/op.h"

namespace fleet::replay {

struct KeyTupleHash {
  size_t operator()(const std::vector<trace::ObjectKey>& keys) const noexcept;
};

struct DispatchCounters {
  uint64_t exits_without_enter = 0;
  uint64_t dangling_contexts_closed = 0;
};

class Dispatcher {
 public:
  explicit Dispatcher(engine::Engine& engine) : engine_(engine) {}
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Issues one known op (kind != Unknown). The caller times the call.
  engine::CallResult dispatch(const trace::Op& op);
  // Exits every context still open; returns how many.
  uint64_t close_dangling();

  size_t open_contexts() const { return open_count_; }
  const DispatchCounters& counters() const { return counters_; }

 private:
  engine::CallResult enter(const trace::Op& op);
  engine::CallResult exit(const trace::Op& op);

  engine::Engine& engine_;
  // Open contexts grouped by the hash of their key tuple (no tuple copy on the hot path); an
  // exit takes the oldest context whose keys equal its own, so pairing is FIFO per exact tuple
  // even when two tuples share a hash. `seq` orders groups by first insertion for the final
  // close; emptied groups are erased so memory follows the open contexts, not the trace.
  struct OpenTuple {
    uint64_t seq = 0;
    std::vector<engine::ReadContext> queue;  // FIFO; almost always one context
  };
  std::unordered_map<uint64_t, OpenTuple> open_;
  uint64_t next_seq_ = 0;
  size_t open_count_ = 0;
  DispatchCounters counters_;
};

}  // namespace fleet::replay
