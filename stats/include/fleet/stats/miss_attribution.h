// Why a key missed (issue 40, item 6; docs/causal-pacing.md "Miss attribution"). The engine
// labels each miss as it decides it: a LOOKUP prefetch that left a key unserved (the hit rate's
// misses), or a read (`__enter__`) that found a key not readable in L1. Each class is blamed on
// the speed-up (compression), on the machine and config (environment), on the trace itself, or
// follows from another miss already counted. A run's misses, keyed by (record t_wall, key),
// pair with a baseline run's to say which misses the speed-up added (MissPairing).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fleet::stats {

enum class MissWhere : uint8_t { Prefetch, Read };
inline constexpr size_t kMissWhereCount = 2;

enum class MissClass : uint8_t {
  Cold,            // prefetch: never written on this node before (the trace's own miss)
  StoreNotLanded,  // prefetch: its write-behind store to L2 was queued or in flight
  WriteRefused,    // prefetch: its last reserve_write was refused for a full L1
  Evicted,         // prefetch or read: evicted from L1 since it was last there, no L2 copy
  NotFound,        // prefetch: written and not evicted, yet in no tier (an L2 dropped it)
  LoadFailed,      // prefetch: found in L2, the load abandoned (L1 full or contended)
  Trimmed,         // prefetch: in a tier, outside what the trim policy keeps (another miss)
  Abandoned,       // prefetch: still queued or in flight when the engine closed
  PrefetchQueued,  // read: its prefetch waited behind max_in_flight
  LoadRunning,     // read: its prefetch was still looking up or loading
  WriteLocked,     // read: in L1 but still being written
  NotLoaded,       // read: not in L1, no prefetch running (its prefetch missed it)
};
inline constexpr size_t kMissClassCount = 12;

enum class MissBlame : uint8_t { Compression, Environment, Trace, Follows };
inline constexpr size_t kMissBlameCount = 4;

std::string_view miss_where_name(MissWhere w);
std::string_view miss_class_name(MissClass c);
std::string_view miss_blame_name(MissBlame b);
std::optional<MissWhere> miss_where_from_name(std::string_view s);
std::optional<MissClass> miss_class_from_name(std::string_view s);
// One line a person reads ("its store to L2 had not landed").
std::string_view miss_class_meaning(MissClass c);

// Timing classes (a store or a prefetch still running) are the speed-up's when the run was
// faster than recorded, the environment's (a backend slower than the recorded one) at 1x; a
// write still running is the speed-up's, or at 1x the trace's (the recorded write ran then too);
// capacity classes (refused, evicted, load failed) are the environment's unless the engine's
// eviction tick ran on the wall clock of a sped-up run (uniform pacing), which starves L1, or
// the partial schedule sped it up: each lifecycle keeps its recorded duration while the trace
// runs S times faster around it, so up to S times as many hold L1 at once as at 1x.
MissBlame blame_of(MissClass c, bool sped_up, bool engine_follows_trace, bool partial_schedule);

// One miss: the record whose call decided it, named by its recorded wall-clock time (LMCache
// stamps every record; the same in every run of the trace, on every node and in every mode,
// where file offsets do not survive streaming), the key (stable_key_id), where and why.
struct MissEvent {
  double record = 0.0;  // the record's t_wall
  uint64_t key = 0;
  MissWhere where = MissWhere::Prefetch;
  MissClass cls = MissClass::Cold;

  bool same_miss(const MissEvent& o) const {
    return record == o.record && key == o.key && where == o.where;
  }
};

using MissCounts = std::array<std::array<uint64_t, kMissClassCount>, kMissWhereCount>;

}  // namespace fleet::stats
