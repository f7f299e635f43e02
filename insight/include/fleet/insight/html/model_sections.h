// The report model's sections that come from fleet_summary.json alone (report_model.cc adds
// the time series): the verdict, the run, nodes, ops, lateness and cache, each tolerant of a
// missing or partial summary (docs/report.md).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet/insight/html/report_model.h"
#include "fleet/insight/html/significant_digits.h"

namespace fleet::report::html {

nlohmann::json round_points(const nlohmann::json& points);  // [[x, y], ...] -> rounded

// `j[key]` or null, for any j (a partial run's summary may lack anything).
const nlohmann::json& at(const nlohmann::json& j, const char* key);

struct PartialState {
  bool partial = false;
  std::string reason;
};
PartialState partial_state(const nlohmann::json& summary, const RunFiles& files);

// {"status", "items": [{"level", "title", "text"}]}: failed records, lateness, lost nodes,
// digest comparison, damaged trace, damaged files.
nlohmann::json verdict_json(const nlohmann::json& summary, const RunFiles& files);
nlohmann::json run_json(const nlohmann::json& summary);
nlohmann::json nodes_json(
    const nlohmann::json& summary,
    const std::map<std::string, std::vector<const stats::RunWindow*>>& windows);
nlohmann::json ops_json(const nlohmann::json& summary);
nlohmann::json lateness_json(const nlohmann::json& summary);
nlohmann::json cache_model_json(const nlohmann::json& summary);

}  // namespace fleet::report::html
