// --prepare-l2 (docs/l2-traces.md, "The replay plan"): stores the plan's prepared objects (found in
// L2 by the source, never stored by the trace before) into the target before the measured run,
// in batches of 64 keys with their recorded sizes, and waits for every store to complete. Its
// I/O is not part of the replay's stats; l2_prepare_manifest.json records it.
#pragma once

#include <cstdint>
#include <string>

#include "fleet/l2replay/l2_plan.h"
#include "fleet/l2replay/l2_target.h"
#include "fleet/util/status.h"

namespace fleet::l2replay {

struct L2PrepareResult {
  uint64_t prepared_objects = 0;
  uint64_t prepared_bytes = 0;
  uint64_t store_tasks_succeeded = 0;
  uint64_t store_tasks_failed = 0;
  double elapsed_seconds = 0.0;
};

// An error "L2 prepare timed out with N task(s)" when the stores do not all complete within
// drain_timeout_s.
Result<L2PrepareResult> prepare_l2(const L2Plan& plan, L2Target& target, double drain_timeout_s);

// {"elapsed_seconds", "prepared_bytes", "prepared_objects", "store_tasks_succeeded"} (the
// fork's fields) plus "store_tasks_failed", sorted, indent 2.
std::string prepare_manifest_json(const L2PrepareResult& r);

}  // namespace fleet::l2replay
