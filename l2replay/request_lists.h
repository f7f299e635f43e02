// Each request's selected lookups and loads (plan_edges.cc): what a load and an unlock wait for.
// Two flat lists back to back by request (CSR) and a request id -> dense index of 16-byte
// open-addressing slots, built in two passes over the ops: a map node and two vectors per
// request cost more than the rest of the edges (300,000 heap blocks for 100,000 requests,
// docs/benchmarks.md, "L2 replay").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleet/l2replay/l2_plan.h"

namespace fleet::l2replay::detail {

class RequestLists {
 public:
  explicit RequestLists(const L2Plan& plan);

  // The selected lookups / loads of op i's request, in file order; op i is a lookup, load or
  // unlock.
  std::span<const uint32_t> lookups_of(uint32_t i) const { return of(lookups_, request_of_[i]); }
  std::span<const uint32_t> loads_of(uint32_t i) const { return of(loads_, request_of_[i]); }

 private:
  struct Lists {
    std::vector<uint32_t> at;  // request r's ops are ops[at[r] .. at[r + 1])
    std::vector<uint32_t> ops;
  };
  static std::span<const uint32_t> of(const Lists& l, uint32_t r) {
    return {l.ops.data() + l.at[r], l.ops.data() + l.at[r + 1]};
  }
  uint32_t index_of(int64_t request_id);  // dense, in first-seen order
  void grow();

  struct Slot {
    int64_t request_id = 0;
    uint32_t index_plus_1 = 0;  // 0: empty
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  uint32_t requests_ = 0;
  std::vector<uint32_t> request_of_;  // by op; UINT32_MAX: not a lookup, load or unlock
  Lists lookups_, loads_;
};

}  // namespace fleet::l2replay::detail
