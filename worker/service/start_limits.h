// What a START may ask of this worker whatever the run, checked before anything is built: the
// node's place in the fleet, the credit window, the pace's origin and speed, the run's key
// namespace, and an L2 run's files and numbers. A hostile or broken coordinator gets a refusal
// naming the field, not a division by zero, an unbounded queue or a 60-MB key on every L2 op
// (docs/security.md, "Bounded resources").
#pragma once

#include <string>

#include "fleet/wire/protocol.h"

namespace fleet::service {

// "" when `s` is within the limits; else what is wrong, naming the field.
std::string start_limits_error(const wire::Start& s);

}  // namespace fleet::service
