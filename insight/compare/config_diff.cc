#include "fleet/insight/compare/config_diff.h"

#include <algorithm>
#include <set>

namespace fleet::compare {

namespace {

using json = nlohmann::json;

// Two stored configs someone else wrote: every leaf's path was a copy of every key above it
// (40 levels of 100-KB keys took 4.8 GB and std::bad_alloc), so keys are cut at 200 bytes and
// the listing stops at kMaxConfigDifferences, far more than a page or a terminal shows.
constexpr size_t kMaxKeyBytes = 200;

std::string child(const std::string& path, const std::string& key) {
  const std::string k = key.size() > kMaxKeyBytes ? key.substr(0, kMaxKeyBytes) + "..." : key;
  return path.empty() ? k : path + "." + k;
}

void walk(const json& a, const json& b, const std::string& path,
          std::vector<ConfigDifference>& out) {
  using Kind = ConfigDifference::Kind;
  if (out.size() >= kMaxConfigDifferences) return;
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;  // the union, sorted
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const std::string& k : keys) {
      const bool in_a = a.contains(k), in_b = b.contains(k);
      if (in_a && in_b) {
        walk(a[k], b[k], child(path, k), out);
      } else if (out.size() < kMaxConfigDifferences) {
        out.push_back({child(path, k), in_a ? Kind::kRemoved : Kind::kAdded, in_a ? a[k] : json(),
                       in_b ? b[k] : json()});
      }
    }
    return;
  }
  if (a.is_array() && b.is_array()) {
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      const std::string at = path + "[" + std::to_string(i) + "]";
      if (i < a.size() && i < b.size()) {
        walk(a[i], b[i], at, out);
      } else if (out.size() < kMaxConfigDifferences) {
        out.push_back({at, i < a.size() ? Kind::kRemoved : Kind::kAdded,
                       i < a.size() ? a[i] : json(), i < b.size() ? b[i] : json()});
      }
    }
    return;
  }
  if (a != b) out.push_back({path.empty() ? "(config)" : path, Kind::kChanged, a, b});
}

std::string compact(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::vector<ConfigDifference> diff_config(const json& a, const json& b) {
  std::vector<ConfigDifference> out;
  walk(a, b, "", out);
  return out;
}

std::string describe(const ConfigDifference& d) {
  switch (d.kind) {
    case ConfigDifference::Kind::kAdded:
      return d.path + ": added " + compact(d.b);
    case ConfigDifference::Kind::kRemoved:
      return d.path + ": removed (was " + compact(d.a) + ")";
    case ConfigDifference::Kind::kChanged:
      break;
  }
  return d.path + ": " + compact(d.a) + " -> " + compact(d.b);
}

const char* kind_name(ConfigDifference::Kind kind) {
  switch (kind) {
    case ConfigDifference::Kind::kAdded:
      return "added";
    case ConfigDifference::Kind::kRemoved:
      return "removed";
    case ConfigDifference::Kind::kChanged:
      break;
  }
  return "changed";
}

}  // namespace fleet::compare
