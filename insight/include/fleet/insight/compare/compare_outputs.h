// A Comparison written out: the aligned terminal table (stdout), compare.json, and the
// self-contained compare.html page (the run report's style, Chart.js and helpers).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet/insight/compare/comparison.h"
#include "fleet/insight/compare/run_snapshot.h"
#include "fleet/insight/compare/threshold.h"

namespace fleet::compare {

std::string terminal_table(const Comparison& c, const std::vector<ThresholdOutcome>& outcomes);

// compare.json (docs/compare.md § compare.json).
nlohmann::json comparison_json(const Comparison& c, const std::vector<ThresholdOutcome>& outcomes);

// The page, from comparison_json's object plus each run's latency CDFs (`latency_cdf_ms` of
// fleet_summary.json) for the overlay chart; never throws on a missing field.
std::string render_compare_html(const nlohmann::json& comparison, const nlohmann::json& cdf_a,
                                const nlohmann::json& cdf_b);
// A run's latency CDFs as render_compare_html takes them: {qualname: [[ms, fraction], ...]}.
nlohmann::json latency_cdfs_json(const RunSnapshot& run);

}  // namespace fleet::compare
