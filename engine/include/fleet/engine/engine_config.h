// The engine's configuration: LMCache's own StorageManager flags (same names, defaults and
// meaning as `lmcache server` / `lmcache trace replay`), a few Fleet-only knobs, and the exact
// StorageManagerConfig dict LMCache digests (sm_config_json / sm_config_digest). JSON conversions
// live in engine_config_json.h, for the edges; this header does not include nlohmann/json.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/util/status.h"

namespace fleet::storage {

struct EngineConfig {
  // Fleet: which engine make_engine builds, "native" or "noop".
  std::string engine_name = "native";

  // L1 (L1ManagerConfig / L1MemoryManagerConfig). 0 = not given (required by validate()).
  uint64_t l1_size_in_bytes = 0;
  bool l1_use_lazy = true;
  uint64_t l1_init_size_in_bytes = 20ull << 30;  // capped at the size in the digest dict
  uint64_t l1_align_bytes = 4096;
  int64_t l1_write_ttl_seconds = 600;
  int64_t l1_read_ttl_seconds = 300;
  std::string l1_shm_name;  // "" as in a replay
  bool l1_use_hugepages = false;
  std::string l1_tag = "_default";

  // EvictionConfig.
  std::string eviction_policy = "LRU";
  double eviction_trigger_watermark = 0.8;
  double eviction_ratio = 0.2;

  // L2 and controllers.
  // One JSON object per --l2-adapter, in order, as compact JSON text (nlohmann dump(); parse it
  // back, or use add_l2_adapter / l2_adapter_json from engine_config_json.h).
  std::vector<std::string> l2_adapters;
  std::string l2_store_policy = "default";
  std::string l2_prefetch_policy = "default";
  int64_t l2_prefetch_max_in_flight = 8;

  // Fleet-only (not part of LMCache's dict, so not part of the digest).
  int64_t eviction_tick_ms = 1000;
  bool drain_on_close = true;  // --no-drain: abandon in-flight stores as LMCache does
  bool bridge_reserved_write_creates = false;  // the post-era-3 reserved_write -> create hook
  // Prefix of every key a shared L2 (resp) stores: [A-Za-z0-9._-], at most 64 (--sweep sets one
  // per variant so variants sharing a Redis do not share keys). Empty: LMCache's key names.
  std::string l2_key_namespace;
  // How many times faster than the wall the engine's own time runs (issue 40, causal pacing at
  // --speed S): the eviction tick, the L1 lock TTLs and the mock adapter's transfer times are
  // divided by it; real backends and the CPU stay real. 1 = the wall. Not in the digest: a 10x
  // replay models the same LMCache configuration.
  double time_scale = 1.0;
  // Causal pacing above or below 1x: the eviction tick and the L1 lock TTLs run on the trace's
  // time as the replay issues it (Engine::follow_trace_time), not on a wall clock sped up by
  // time_scale, which a schedule that holds records does not reach. time_scale then only scales
  // the mock adapter's transfer times. Not in the digest.
  bool follow_trace_time = false;
  // Label each miss (MissClassifier; docs/causal-pacing.md "Miss attribution"): --classify-misses,
  // --baseline, or any speed but 1x. Not in the digest.
  bool classify_misses = false;

  // Fields of a recorded sm_config_json this struct does not model, merged back into
  // to_lmcache_json() so --config-from-trace reproduces the recorder's digest: a JSON object as
  // text.
  std::string lmcache_passthrough = "{}";

  // An error naming the flag for unknown or out-of-range values.
  Status validate() const;

  // Python json.dumps(to_lmcache_json(cfg), sort_keys=True) and its SHA-256.
  std::string lmcache_json_text() const;
  std::string digest() const;
};

// A key namespace (--l2-key-namespace, or one a run brings): at most 64 characters of
// [A-Za-z0-9._-]; an error naming the flag otherwise. Every L2 key is prefixed with it.
Status check_l2_key_namespace(std::string_view ns);

}  // namespace fleet::storage
