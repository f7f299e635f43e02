// The plan's edge and prepare sets as the shared fixture pins them (tests/fixtures/lmcache/l2/
// README.md): json.dumps(sorted(items), separators=(",", ":")) and its SHA-256, so a plan can be
// compared with the fork's byte for byte.
//   edge:     [dependent, dependency]; dependent [op, adapter_index, task_id] for store,
//             lookup_task, load_task, ["unlock", sequence] for an unlock; dependency the TaskKey
//   prepared: [chunk_hash hex, model_name, kv_rank, object_group_id, cache_salt, size]
#pragma once

#include <string>

#include "fleet/l2replay/l2_plan.h"

namespace fleet::l2replay {

std::string edge_list_json(const L2Plan& plan);
std::string prepare_keys_json(const L2Plan& plan);
std::string edge_list_sha256(const L2Plan& plan);
std::string prepare_keys_sha256(const L2Plan& plan);

}  // namespace fleet::l2replay
