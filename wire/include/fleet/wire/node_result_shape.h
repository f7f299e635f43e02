// What the coordinator reads from a node's result only when it writes the report, long after
// the node's session has ended: the status, the duration, the engine counters' L2 adapters, the
// L2 windows (l2_windows_shape.h), and finite numbers in every JSON part it copies into
// fleet_summary.json (engine config, engine counters, L2 windows). decode_node_result checks them
// when the DONE arrives, so a malformed result is a protocol error naming the peer and the field
// (the node is then lost, and the report is written without it), not an exception in the middle of
// writing outputs.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "fleet/wire/node_result.h"

namespace fleet::wire {

// The status a DONE spells: a word of kNodeStatusNames, or std::invalid_argument naming it.
NodeStatus status_of(std::string_view word);

// Throws std::invalid_argument naming the first field that is not as a worker writes it.
void check_report_fields(const NodeResult& r);

// The engine counters the report reads strictly: an object whose `l2_adapters`, when present,
// is an array of objects with a string `type`, a boolean `eviction_enabled` and an integer
// `evicted_keys` (each optional). The rest (the cache outcome, plain counters) is read
// leniently, a mistyped value as 0 (report/cache_summary.cc), or shown as it is.
void check_engine_counters_shape(const nlohmann::json& counters);

}  // namespace fleet::wire
