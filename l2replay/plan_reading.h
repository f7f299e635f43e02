// The plan's two steps after reading (l2_plan.cc): the dependency edges and the prepared
// objects, from the selected operations with their source outcomes.
#pragma once

#include "fleet/l2replay/l2_plan.h"

namespace fleet::l2replay::detail {

// Sets every op's deps, plan.edge_counts, forward_edges and overlapping_store_hits.
void link_dependencies(L2Plan& plan);
// Fills plan.prepare. Throws std::runtime_error naming the file when a prepared key has no
// size (no recorded object size and no layout of its object group).
void plan_preparation(L2Plan& plan);

}  // namespace fleet::l2replay::detail
