// The edge's view of engine::Counters: the one place they become JSON (the replay result that
// feeds NodeResult, fleet_summary.json and trace_replay_summary.json). A group becomes an
// object, a list of groups an array of objects; every scalar keeps its JSON number kind.
#pragma once

#include <nlohmann/json.hpp>

#include "fleet/engine/counters.h"

namespace fleet::engine {

inline nlohmann::json to_json(const Counters& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& e : c.entries()) {
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, Counters>) {
            j[e.name] = to_json(v);
          } else if constexpr (std::is_same_v<V, Counters::List>) {
            nlohmann::json a = nlohmann::json::array();
            for (const auto& g : v) a.push_back(to_json(g));
            j[e.name] = std::move(a);
          } else {
            j[e.name] = v;
          }
        },
        e.value);
  }
  return j;
}

// So that `nlohmann::json j = counters;` works too.
inline void to_json(nlohmann::json& j, const Counters& c) { j = to_json(c); }

}  // namespace fleet::engine
