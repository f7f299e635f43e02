// An ordered JSON object with room for `keys` members. nlohmann's ordered_map is a vector of
// pair<const string, json>: that pair cannot be moved, so each time the vector grows it deep-
// copies every member already in it. Building a summary whose early members hold large subtrees
// (every op's statistics, every node) paid for those subtrees once per growth.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

namespace fleet::util {

inline nlohmann::ordered_json keyed_object(std::size_t keys) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j.get_ref<nlohmann::ordered_json::object_t&>().reserve(keys);
  return j;
}

}  // namespace fleet::util
