// The report model's sections that come from the run's summary alone (report_model.cc adds
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
nlohmann::json round_points(const summary::Cdf& points);

using summary::RunSummary;

struct PartialState {
  bool partial = false;
  std::string reason;
};
PartialState partial_state(const RunSummary& summary, const RunFiles& files);

// {"status", "items": [{"level", "title", "text"}]}: failed records, lateness, lost nodes,
// digest comparison, damaged trace, damaged files.
nlohmann::json verdict_json(const RunSummary& summary, const RunFiles& files);
nlohmann::json run_json(const RunSummary& summary);
nlohmann::json nodes_json(
    const RunSummary& summary,
    const std::map<std::string, std::vector<const stats::RunWindow*>>& windows);
nlohmann::json ops_json(const RunSummary& summary);
nlohmann::json lateness_json(const RunSummary& summary);
nlohmann::json cache_model_json(const RunSummary& summary);

}  // namespace fleet::report::html
