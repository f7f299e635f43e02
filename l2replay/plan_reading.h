// The plan's steps after reading (l2_plan.cc): the dependency edges and the prepared objects,
// from the selected operations with their source outcomes. Keys are the plan's dense ids
// (interned while reading), so each step indexes vectors instead of hashing ObjectKeys.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fleet/l2replay/l2_plan.h"
#include "fleet/util/status.h"

namespace fleet::l2replay::detail {

struct StoreDone {
  uint64_t completion_sequence;
  uint32_t op;
};
// Selected stores that succeeded in the source, per key id, by completion sequence: key k's are
// done[at[k] .. at[k + 1]).
struct StoresByKey {
  std::vector<uint32_t> at;
  std::vector<StoreDone> done;
  std::span<const StoreDone> of(uint32_t key) const {
    return {done.data() + at[key], done.data() + at[key + 1]};
  }
};
StoresByKey successful_stores(const L2Plan& plan);

// Sets every op's deps, plan.edge_counts, forward_edges and overlapping_store_hits; an error
// naming the file, record and request when one request's lookups and loads would make more
// edges than the plan allows (kMaxEdgesPerOp per operation).
Status link_dependencies(L2Plan& plan, const StoresByKey& stores);
// Fills plan.prepare. An error naming the file and the lookup's record when a selected lookup
// has no layout or a prepared key has no size (no recorded object size, no layout of its group).
Status plan_preparation(L2Plan& plan, const StoresByKey& stores);

}  // namespace fleet::l2replay::detail
