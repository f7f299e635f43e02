// --plan-only --speed S: the causal plan preview (docs/causal-pacing.md, "Plan preview") of the
// run the options describe, printed before (instead of) any run.
#pragma once

#include "fleet/coordinator/session/local_run.h"
#include "fleet/util/status.h"

namespace fleet::session {

// Reads the whole trace, simulates its schedule at o.speed with o.pacing and prints the
// preview to stdout. An unreadable trace is an error naming the file and offset.
Status print_causal_preview(const ReplayOptions& o);

}  // namespace fleet::session
