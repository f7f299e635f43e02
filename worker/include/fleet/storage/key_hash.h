// The hash the engine's key tables use. Deliberately not noexcept: libstdc++ then caches each
// node's hash code, so chain walks and rehashes never re-hash a key (with the noexcept
// trace::ObjectKeyHash they did, and hashing dominated the engine's profile). Word-at-a-time
// std::hash over the chunk hash and model name.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "fleet/trace/types.h"

namespace fleet::storage {

struct KeyHash {
  size_t operator()(const trace::ObjectKey& k) const {  // NOLINT: not noexcept on purpose
    size_t h = std::hash<std::string_view>{}(k.chunk_hash);
    h ^= std::hash<std::string_view>{}(k.model_name) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= static_cast<size_t>(k.kv_rank) * 0xff51afd7ed558ccdull;
    h ^= static_cast<size_t>(k.object_group_id) * 0xc4ceb9fe1a85ec53ull;
    if (!k.cache_salt.empty()) h ^= std::hash<std::string_view>{}(k.cache_salt) * 31;
    return h;
  }
};

}  // namespace fleet::storage
