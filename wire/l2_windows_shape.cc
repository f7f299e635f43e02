#include "fleet/wire/l2_windows_shape.h"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "fleet/stats/log_linear_histogram.h"
#include "fleet/util/json_number.h"

namespace fleet::wire {

namespace {

[[noreturn]] void bad(const std::string& where, const char* what) {
  throw std::invalid_argument("l2_windows." + where + ": " + what);
}

const nlohmann::json& object_at(const nlohmann::json& parent, const char* key,
                                const std::string& where) {
  if (!parent.contains(key)) bad(where, (std::string("missing \"") + key + "\"").c_str());
  const auto& v = parent[key];
  if (!v.is_object()) bad(where + "." + key, "must be an object");
  return v;
}

void check_number(const nlohmann::json& parent, const char* key, const std::string& where) {
  if (!parent.contains(key) || !parent[key].is_number()) {
    bad(where + "." + key, "must be a number");
  }
}

// One op kind's counters: `n` and `bytes` are counts; the rest differs between windows and totals.
void check_counts(const nlohmann::json& op, const std::string& where) {
  if (!op.is_object()) bad(where, "must be an object");
  for (const char* key : {"n", "bytes"}) {
    if (!op.contains(key)) bad(where, (std::string("missing \"") + key + "\"").c_str());
    util::json_integer<uint64_t>(op[key], "l2_windows." + where + "." + key);
  }
}

}  // namespace

void check_l2_windows_shape(const nlohmann::json& l2) {
  if (!l2.is_object()) throw std::invalid_argument("l2_windows: must be an object");
  if (l2.empty()) return;
  if (l2.contains("window_s")) check_number(l2, "window_s", "");
  if (l2.contains("windows")) {
    const auto& windows = l2["windows"];
    if (!windows.is_array()) bad("windows", "must be an array");
    for (std::size_t i = 0; i < windows.size(); ++i) {
      const std::string where = "windows[" + std::to_string(i) + "]";
      const auto& w = windows[i];
      if (!w.is_object() || !w.contains("t")) bad(where, "must be an object with \"t\"");
      util::json_integer<int64_t>(w["t"], "l2_windows." + where + ".t");
      for (const auto& [kind, op] : object_at(w, "ops", where).items()) {
        const std::string at = where + ".ops." + kind;
        check_counts(op, at);
        check_number(op, "p50_us", at);
        check_number(op, "p99_us", at);
      }
    }
  }
  if (l2.contains("totals")) {
    if (!l2["totals"].is_object()) bad("totals", "must be an object");
    for (const auto& [kind, op] : l2["totals"].items()) {
      const std::string at = "totals." + kind;
      check_counts(op, at);
      if (!op.contains("latency_ns")) bad(at, "missing \"latency_ns\"");
      try {
        stats::LogLinearHistogram::from_json(op["latency_ns"]);
      } catch (const std::exception& e) {
        bad(at + ".latency_ns", e.what());
      }
    }
  }
}

}  // namespace fleet::wire
