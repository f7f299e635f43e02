// The shape of a node's `l2_windows` (the contention view a worker sends in its DONE, written
// by replay/l2_windows.cc). The coordinator reads it only when it writes the report, long after
// the node's session has ended, so it is checked when the DONE arrives: a malformed one is then
// a protocol error naming the peer, not an exception in the middle of writing outputs.
#pragma once

#include <nlohmann/json.hpp>

namespace fleet::wire {

// Throws std::invalid_argument naming the first field that is not as l2_windows.cc writes it.
// An empty object (a node without L2) is valid.
void check_l2_windows_shape(const nlohmann::json& l2);

}  // namespace fleet::wire
