// The plan's two steps after reading (l2_plan.cc): the dependency edges and the prepared
// objects, from the selected operations with their source outcomes.
#pragma once

#include <unordered_map>
#include <vector>

#include "fleet/l2replay/l2_plan.h"

namespace fleet::l2replay::detail {

struct StoreDone {
  uint64_t completion_sequence;
  uint32_t op;
};
// Selected stores that succeeded in the source, per key, by completion sequence.
using StoresByKey =
    std::unordered_map<trace::ObjectKey, std::vector<StoreDone>, trace::ObjectKeyHash>;
StoresByKey successful_stores(const L2Plan& plan);

// Sets every op's deps, plan.edge_counts, forward_edges and overlapping_store_hits.
void link_dependencies(L2Plan& plan, const StoresByKey& stores);
// Fills plan.prepare. Throws std::runtime_error naming the file when a prepared key has no
// size (no recorded object size and no layout of its object group).
void plan_preparation(L2Plan& plan, const StoresByKey& stores);

}  // namespace fleet::l2replay::detail
