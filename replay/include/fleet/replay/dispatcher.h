// Typed op -> engine call, with LMCache's dispatcher rules (docs/trace-format.md §6.1):
// read_prefetched_results __enter__/__exit__ paired FIFO per exact key tuple
// (fleet/trace/read_pairing.h), an __exit__ with no open __enter__ is a warning that still
// counts as replayed, and contexts still open at the end are closed (insertion order, FIFO
// within a tuple) without being counted or timed.
#pragma once

#include <cstdint>
#include <string>

#include "fleet/engine/engine.h"
#include "fleet/trace/op.h"
#include "fleet/trace/read_pairing.h"

namespace fleet::replay {

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

  size_t open_contexts() const { return open_.size(); }
  const DispatchCounters& counters() const { return counters_; }

 private:
  engine::CallResult enter(const trace::Op& op);
  engine::CallResult exit(const trace::Op& op);

  engine::Engine& engine_;
  trace::ReadPairing<engine::ReadContext> open_;
  DispatchCounters counters_;
};

}  // namespace fleet::replay
