// What two runs that route differently (the coordinator, the workers live, the workers from a
// saved plan) must agree on, byte for byte: fleet_summary.json without what differs between
// any two runs of one binary, and the terminal without the measured clock offsets.
#pragma once

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

namespace fleet::test {

// What differs between two runs of one binary (timings, ports, clock offsets), and what
// describes the coordinator's own work (the coordinator section: what it sent, its CPU), which
// is what self-routing changes.
inline const std::set<std::string> kNotCompared = {"coordinator",
                                                   "start",
                                                   "t0_mono_ns",
                                                   "address",
                                                   "messages",
                                                   "peak_rss_bytes",
                                                   "cpu_user_s",
                                                   "cpu_system_s",
                                                   "wall_since_t0_s",
                                                   "phase_s",
                                                   "clock_offset_us",
                                                   "clock_uncertainty_us",
                                                   "build_id",
                                                   "started_at",
                                                   "wall_s",
                                                   "duration_s",
                                                   "rss",
                                                   "t0_spread_us",
                                                   "first_dispatch_us",
                                                   "routed_by"};

inline nlohmann::json comparable(const nlohmann::json& j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!kNotCompared.count(it.key())) out[it.key()] = comparable(it.value());
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(comparable(v));
    return out;
  }
  return j;
}

// The terminal without the measured clock offsets (" off=12.3us ") and the padding that
// follows their width (as bench/ab_outputs.sh compares it).
inline std::string stable_stdout(const std::string& out) {
  const std::string no_offsets =
      std::regex_replace(out, std::regex(" off=-?[0-9.]+us "), " off=_ ");
  return std::regex_replace(no_offsets, std::regex("(local-[0-9]+:) +"), "$1 ");
}

}  // namespace fleet::test
