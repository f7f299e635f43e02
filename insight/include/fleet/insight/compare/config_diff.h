// The engine configs of two runs (LMCache's StorageManagerConfig dicts) compared field by
// field: nested objects and arrays are walked recursively, and every leaf that differs is one
// entry with its path, e.g. `l2_adapter_config.adapters[0].max_size_gb: 8 -> 16`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fleet::compare {

struct ConfigDifference {
  enum class Kind { kChanged, kAdded, kRemoved };  // added: only in B; removed: only in A
  std::string path;
  Kind kind = Kind::kChanged;
  nlohmann::json a, b;  // null on the side that lacks the field
};

// Object keys in sorted order, array elements by index. Numbers compare by value (8 == 8.0).
// At most kMaxConfigDifferences, the first in that order; a key is shown to its first 200 bytes.
inline constexpr size_t kMaxConfigDifferences = 1000;
std::vector<ConfigDifference> diff_config(const nlohmann::json& a, const nlohmann::json& b);

// "path: A -> B", "path: added B", "path: removed (was A)", values as compact JSON.
std::string describe(const ConfigDifference& d);
const char* kind_name(ConfigDifference::Kind kind);  // "changed", "added", "removed"

}  // namespace fleet::compare
