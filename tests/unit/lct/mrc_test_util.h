// Shared by the `lct mrc` tests: a byte-capacity LRU cache simulated the obvious way, and
// access streams built from (key, bytes) pairs.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "mrc/mrc_stream.h"

namespace fleet::mrc::testing {

using KeyBytes = std::pair<uint32_t, uint64_t>;

struct LruOutcome {
  uint64_t misses = 0, miss_bytes = 0;
};

// A byte LRU of `capacity`: a hit if resident; then the object (with its new size) becomes
// most recent and least recent objects are evicted until everything fits.
inline LruOutcome brute_force_lru(const std::vector<KeyBytes>& stream, uint64_t capacity) {
  std::vector<KeyBytes> cache;  // most recent last
  uint64_t used = 0;
  LruOutcome out;
  for (const auto& [key, bytes] : stream) {
    auto it = cache.begin();
    while (it != cache.end() && it->first != key) ++it;
    if (it == cache.end()) {
      ++out.misses;
      out.miss_bytes += bytes;
    } else {
      used -= it->second;
      cache.erase(it);
    }
    cache.emplace_back(key, bytes);
    used += bytes;
    while (used > capacity) {
      used -= cache.front().second;
      cache.erase(cache.begin());
    }
  }
  return out;
}

inline AccessStream stream_of(const std::vector<KeyBytes>& pairs, AccessKind kind) {
  AccessStream s;
  std::map<uint64_t, uint32_t> ids;
  s.sizes.push_back(1);
  for (const auto& [key, bytes] : pairs) {
    auto [it, fresh] = ids.try_emplace(bytes, static_cast<uint32_t>(s.sizes.size()));
    if (fresh) s.sizes.push_back(bytes);
    s.accesses.emplace_back(key, it->second, kind);
    s.distinct_keys = std::max(s.distinct_keys, key + 1);
  }
  s.trace_counts.writes = pairs.size();
  return s;
}

}  // namespace fleet::mrc::testing
