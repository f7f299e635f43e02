// Finds each record's dependency edges to earlier records while the records stream past, with
// memory bounded by the lock TTLs: per key the open write, the last finished write, the last
// __enter__/__exit__ and the last access, plus the prefetches no __enter__ has matched yet;
// whatever is older than the TTL is forgotten (the recorded server's locks had expired too).
// The replay session asks before each call (before_issue) and tells after (after_issue); the
// plan preview runs the same finder on simulated instants.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <unordered_map>
#include <vector>

#include "fleet/causal/edge.h"
#include "fleet/trace/op.h"

namespace fleet::causal {

struct EdgeFinderOptions {
  double read_ttl_s = 300.0;   // LMCache's L1 read-lock TTL (EngineConfig::l1_read_ttl_seconds)
  double write_ttl_s = 600.0;  // and write-lock TTL
  // A gap edge keeps its recorded gap up to this long (--causal-horizon): a longer recorded gap
  // is idle time (a user's think time between turns), not the time a store or load needs to
  // land, and is scaled like any other gap. TTL-kept order edges keep their whole gap.
  double horizon_s = 0.050;
};

// What a record's edges ask of its issue instant.
struct Hold {
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
  int64_t not_before_ns = kNone;  // latest of its gap edges' parent issue + recorded gap
  EdgeKind binding = EdgeKind::WriteLifecycle;  // the edge that sets not_before_ns
  int64_t binding_gap_ns = 0;                   // its recorded gap
  bool held() const { return not_before_ns != kNone; }
};

class EdgeFinder {
 public:
  explicit EdgeFinder(EdgeFinderOptions options = {});

  // The record's edges to earlier records (counted once per record and kind) and the earliest
  // instant its gap edges allow. Consumes what the edges use up (an open write, a prefetch).
  Hold before_issue(const trace::Op& op);
  // Remembers the record as a parent; issue_ns is when its call started.
  void after_issue(const trace::Op& op, int64_t issue_ns);

  // The node the next records run on (the plan preview of a sharded run: an edge to a parent
  // of another node is counted as cut). A replay never sets it: one node.
  void set_node(uint32_t node) { node_ = node; }

  const EdgeCounts& counts() const { return counts_; }
  size_t tracked_keys() const { return keys_.size(); }
  size_t open_prefetches() const { return prefetches_.size(); }

 private:
  struct Stamp {
    double t = 0.0;
    int64_t issue_ns = 0;
    bool set = false;
    uint32_t node = 0;
  };
  struct KeyState {
    Stamp reserve;         // the open write lifecycle
    Stamp finished_write;  // not yet seen by a prefetch
    Stamp enter;           // the last __enter__ / __exit__ naming the key
    Stamp exit;
    Stamp access;  // the last reader (finish_read) or writer (finish/abort_write)
    std::vector<uint64_t> prefetch_ids;  // unmatched prefetches holding the key, oldest first
    double newest_t = 0.0;
  };
  struct Prefetch {
    double t = 0.0;
    int64_t issue_ns = 0;
    uint32_t node = 0;
    std::vector<uint64_t> keys;  // sorted key ids
    bool matched = false;
  };
  class Binding;  // the latest constraint of one record (edge_finder.cc)

  KeyState& state(uint64_t key, double t);
  KeyState* find(uint64_t key);
  void add_edge(Binding& b, EdgeKind kind, const Stamp& parent, double t, bool gap_edge);
  void read_lifecycle(Binding& b, const trace::Op& op);
  Prefetch* newest_unmatched_prefetch(KeyState& first, const std::vector<uint64_t>& tuple);
  void expire(double t);

  EdgeFinderOptions options_;
  EdgeCounts counts_;
  std::unordered_map<uint64_t, KeyState> keys_;
  std::deque<Prefetch> prefetches_;
  uint64_t first_prefetch_id_ = 0;  // id of prefetches_.front()
  double next_sweep_t_ = -std::numeric_limits<double>::infinity();
  std::vector<uint64_t> scratch_ids_;
  uint32_t node_ = 0;
};

// A key's identity for the finder: the engine's key hash (collisions are as rare as for any
// 64-bit hash, and cost at most one spurious or missed edge).
uint64_t edge_key_id(const trace::ObjectKey& key);

}  // namespace fleet::causal
