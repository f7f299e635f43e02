#include "fleet/wire/node_result_shape.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fleet/util/json_number.h"
#include "fleet/wire/l2_windows_shape.h"
#include "fleet/wire/node_result.h"

namespace fleet::wire {

namespace {

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  throw std::invalid_argument(field + ": " + what);
}

// A peer's string in an error message: quoted, at most 40 bytes, printable ASCII only.
std::string printable_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 40)) out += c >= 0x20 && c < 0x7f ? c : '?';
  return out + (s.size() > 40 ? "...\"" : "\"");
}

// The one refusal of a status, whether its word is unknown or the coordinator's own.
[[noreturn]] void bad_status(std::string_view word) {
  bad("status", "expected \"ok\" or \"aborted\", got " + printable_quoted(word));
}

void check_adapter(const nlohmann::json& a, const std::string& where) {
  if (!a.is_object()) bad(where, "must be an object");
  if (a.contains("type") && !a["type"].is_string()) bad(where + ".type", "must be a string");
  if (a.contains("eviction_enabled") && !a["eviction_enabled"].is_boolean()) {
    bad(where + ".eviction_enabled", "must be a boolean");
  }
  // Summed as int64_t by the terminal summary (report/outputs.cc).
  if (a.contains("evicted_keys"))
    util::json_integer<int64_t>(a["evicted_keys"], where + ".evicted_keys");
}

// The path below `j` to its first NaN or infinity ("" for `j` itself), nullopt when none.
std::optional<std::string> non_finite_at(const nlohmann::json& j) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) return "";
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (auto below = non_finite_at(it.value())) return "." + it.key() + *below;
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (auto below = non_finite_at(j[i])) return "[" + std::to_string(i) + "]" + *below;
    }
  }
  return std::nullopt;
}

// Copied into fleet_summary.json, which NaN or Infinity would make unreadable to every strict
// JSON reader, this coordinator's own included (report.html would then lose its summary).
void check_finite(const nlohmann::json& j, const std::string& field) {
  if (auto at = non_finite_at(j)) bad(field + *at, "must be a finite number");
}

}  // namespace

void check_engine_counters_shape(const nlohmann::json& counters) {
  if (!counters.is_object()) bad("engine_counters", "must be an object");
  if (!counters.contains("l2_adapters")) return;
  const auto& adapters = counters["l2_adapters"];
  if (!adapters.is_array()) bad("engine_counters.l2_adapters", "must be an array");
  for (std::size_t i = 0; i < adapters.size(); ++i) {
    check_adapter(adapters[i], "engine_counters.l2_adapters[" + std::to_string(i) + "]");
  }
}

NodeStatus status_of(std::string_view word) {
  const std::optional<NodeStatus> status = node_status_from_name(word);
  if (!status) bad_status(word);
  return *status;
}

void check_report_fields(const NodeResult& r) {
  // A worker reports "ok" or "aborted". "lost" is the coordinator's word for a node whose
  // result never came: the report would take a worker's "lost" for one, with no reason.
  if (r.status == NodeStatus::Lost) bad_status(node_status_name(r.status));
  if (!std::isfinite(r.duration_s) || r.duration_s < 0) {
    bad("duration_s", "expected a finite number >= 0, got " + std::to_string(r.duration_s));
  }
  check_engine_counters_shape(r.engine_counters);
  check_l2_windows_shape(r.l2_windows);
  check_finite(r.engine_config, "engine_config");
  check_finite(r.engine_counters, "engine_counters");
  check_finite(r.l2_windows, "l2_windows");
  check_finite(r.l2_replay, "l2_replay");
}

}  // namespace fleet::wire
