// What became of every key the replay asked the cache for (docs/outputs.md § Cache). Each key of
// a prefetch lands in exactly one bucket once its request is decided: served from L1, served
// from one L2 adapter, or missed (not found anywhere, found but its load failed, found but
// outside what the trim policy keeps, or still in flight when the engine closed). So at the end
// of a run requested = l1 + l2 + missed holds exactly, per node and merged.
#pragma once

#include <cstdint>
#include <vector>

#include "fleet/engine/counters.h"

namespace fleet::engine {

struct KeyBytes {
  uint64_t keys = 0;
  uint64_t bytes = 0;

  void add(uint64_t object_bytes) {
    ++keys;
    bytes += object_bytes;
  }
  KeyBytes& operator+=(const KeyBytes& o) {
    keys += o.keys;
    bytes += o.bytes;
    return *this;
  }
  bool operator==(const KeyBytes&) const = default;
};

struct PrefetchOutcome {
  KeyBytes requested;        // keys of calls that did not raise
  KeyBytes l1;               // retained from L1 (the StorageManager's pass or the controller's)
  std::vector<KeyBytes> l2;  // retained after a load from adapter i (config order)
  KeyBytes not_found;        // in no tier
  KeyBytes load_failed;      // an adapter had it, but the load was abandoned (L1 full or
                             // contended) or came back without it
  KeyBytes trimmed;          // in a tier, but outside what the trim policy keeps (after a
                             // broken prefix, outside the attention window)
  KeyBytes abandoned;        // its request was still queued or in flight at close

  KeyBytes l2_total() const;
  KeyBytes missed() const;   // not_found + load_failed + trimmed + abandoned
  KeyBytes decided() const;  // l1 + l2 + missed; requested - decided are in flight
  KeyBytes& l2_at(size_t adapter);
  PrefetchOutcome& operator+=(const PrefetchOutcome& o);
};

struct CacheOutcome {
  PrefetchOutcome lookup;      // LOOKUP-mode submit_prefetch_task (PREFIX, SPARSE): the hit rate
  PrefetchOutcome warm;        // WARM-mode: L2 -> L1 warming, not a read
  KeyBytes write_reserved;     // reserve_write keys that got a buffer
  KeyBytes write_refused_oom;  // reserve_write keys refused with OUT_OF_MEMORY
  uint64_t write_not_writable_keys = 0;
  uint64_t stored_keys = 0;  // finish_write SUCCESS
  KeyBytes evicted;          // L1 eviction (L1_KEYS_EVICTED by the eviction controller)

  CacheOutcome& operator+=(const CacheOutcome& o);
};

// As engine counters: {"lookup": {...}, "warm": {...}, "writes": {...}} with
// {keys, bytes} groups and an "l2" list (docs/engine.md § Counters, "cache").
Counters to_counters(const CacheOutcome& c);

}  // namespace fleet::engine
