// Time series ({"name", "points": [[t, v], ...]} lists) as the page shows them besides their
// chart: a colour per series name, the same one report.js picks (see `seriesColours` there),
// and a summary table so the numbers are readable without JavaScript.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "fleet/insight/html/model_fields.h"
#include "fleet/insight/html/number_format.h"

namespace fleet::report::html {

// Series name -> palette slot 0..7 in order of first appearance across the model's per-node
// series lists; "others" maps to -1 (grey). report.js applies the same rule.
using SeriesColours = std::map<std::string, int>;
SeriesColours series_colours(const Json& model);

// A small colour square for `name` (a blank one when the name has no colour).
std::string swatch(const SeriesColours& colours, const std::string& name);
// The square for palette slot `slot` (-1: grey).
std::string swatch_slot(int slot);

// Summary of one [[t, v], ...] list (non-numeric points skipped); nullopt when empty.
struct SeriesStats {
  size_t points = 0;
  double mean = 0, min = 0, max = 0, max_at = 0;
};
std::optional<SeriesStats> series_stats(const Json& points);

// One row per series: points, mean, min, max and when the max happened, values through
// `format`. Empty string when no series has a point.
std::string series_summary_table(const Json& series_list, const SeriesColours& colours,
                                 const std::function<std::string(Number)>& format,
                                 const std::string& caption);

}  // namespace fleet::report::html
