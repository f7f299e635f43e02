#include "fleet/stats/miss_attribution.h"

#include <array>

namespace fleet::stats {

namespace {

constexpr std::array<std::string_view, kMissWhereCount> kWhere = {"prefetch", "read"};
constexpr std::array<std::string_view, kMissClassCount> kClass = {
    "cold",    "store_not_landed", "write_refused",   "evicted",      "not_found",    "load_failed",
    "trimmed", "abandoned",        "prefetch_queued", "load_running", "write_locked", "not_loaded"};
constexpr std::array<std::string_view, kMissClassCount> kMeaning = {
    "never written on this node before: the trace's own miss",
    "its write-behind store to L2 was queued or in flight",
    "its last write was refused for a full L1",
    "evicted from L1 since it was last there, with no L2 copy",
    "written and not evicted, yet in no tier (an L2 dropped it)",
    "found in L2, the load abandoned (L1 full or contended)",
    "outside what the trim policy keeps after another miss",
    "its prefetch was still queued or in flight when the run ended",
    "its prefetch waited behind max_in_flight",
    "its prefetch was still looking up or loading",
    "in L1 but still being written",
    "not in L1 and no prefetch running: its prefetch missed it"};
constexpr std::array<std::string_view, kMissBlameCount> kBlame = {"compression", "environment",
                                                                  "trace", "follows"};

template <class E, size_t N>
std::optional<E> from_name(const std::array<std::string_view, N>& names, std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace

std::string_view miss_where_name(MissWhere w) { return kWhere[static_cast<size_t>(w)]; }
std::string_view miss_class_name(MissClass c) { return kClass[static_cast<size_t>(c)]; }
std::string_view miss_class_meaning(MissClass c) { return kMeaning[static_cast<size_t>(c)]; }
std::string_view miss_blame_name(MissBlame b) { return kBlame[static_cast<size_t>(b)]; }

std::optional<MissWhere> miss_where_from_name(std::string_view s) {
  return from_name<MissWhere>(kWhere, s);
}
std::optional<MissClass> miss_class_from_name(std::string_view s) {
  return from_name<MissClass>(kClass, s);
}

MissBlame blame_of(MissClass c, bool sped_up, bool engine_follows_trace, bool partial_schedule) {
  switch (c) {
    case MissClass::StoreNotLanded:
    case MissClass::PrefetchQueued:
    case MissClass::LoadRunning:
      return sped_up ? MissBlame::Compression : MissBlame::Environment;
    case MissClass::WriteLocked:  // at 1x the recorded write was running then too
      return sped_up ? MissBlame::Compression : MissBlame::Trace;
    case MissClass::WriteRefused:
    case MissClass::Evicted:
    case MissClass::LoadFailed:
      return sped_up && (!engine_follows_trace || partial_schedule) ? MissBlame::Compression
                                                                    : MissBlame::Environment;
    case MissClass::NotFound:
      return MissBlame::Environment;
    case MissClass::Cold:
    case MissClass::Abandoned:
      return MissBlame::Trace;
    case MissClass::Trimmed:
    case MissClass::NotLoaded:
      return MissBlame::Follows;
  }
  return MissBlame::Trace;
}

}  // namespace fleet::stats
