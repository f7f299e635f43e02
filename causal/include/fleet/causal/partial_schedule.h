// The `partial` schedule (docs/causal-pacing.md, "The schedule"): a record an edge holds past
// its scaled instant is parked instead of holding every record behind it; later records whose
// keys it does not touch overtake it, and records of its keys queue behind it in recorded order
// (so every per-key lifecycle, and the dispatcher's FIFO read pairing, keeps its order). A
// queued record's edges are found once the records ahead of it on its keys have issued.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fleet/causal/edge_finder.h"

namespace fleet::causal {

class PartialSchedule {
 public:
  struct Entry {
    trace::Op op;
    int64_t scaled_ns = 0;  // its uniform instant
    Hold hold;              // its gap edges (known once it is at the head of its keys)
    int64_t target_ns = 0;  // its causal instant
    uint64_t seq = 0;       // recorded order
  };

  explicit PartialSchedule(EdgeFinder& edges) : edges_(edges) {}

  // True when `op` touches a key of a parked record: it must queue behind it.
  bool blocked(const trace::Op& op);
  // Parks a record: `hold`/`target` when its edges held it, none when it is blocked.
  void park(Entry e, bool blocked);
  // The parked record with the earliest causal instant, if that is at or before `limit_ns`.
  std::optional<Entry> pop_ready(int64_t limit_ns);
  // After a popped record issued (and EdgeFinder::after_issue ran): the records queued behind
  // it on its keys that are now at the head of all their keys become ready, their edges found
  // now and their instant no earlier than its own.
  void issued(const Entry& e);
  bool empty() const { return parked_ == 0; }
  size_t parked() const { return parked_; }

 private:
  using Slot = std::shared_ptr<Entry>;
  void key_ids(const trace::Op& op, std::vector<uint64_t>& out) const;
  bool at_head(const Slot& s);
  void make_ready(const Slot& s, int64_t not_before);

  EdgeFinder& edges_;
  std::unordered_map<uint64_t, std::deque<Slot>> chains_;  // key -> parked records, in order
  std::map<std::pair<int64_t, uint64_t>, Slot> ready_;     // (target, seq) -> record
  size_t parked_ = 0;
  std::vector<uint64_t> scratch_;
};

}  // namespace fleet::causal
