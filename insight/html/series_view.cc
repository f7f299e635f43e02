#include "fleet/insight/html/series_view.h"

#include <cmath>
#include <vector>

#include "fleet/insight/html/html_writer.h"

namespace fleet::report::html {

namespace {

constexpr int kPaletteSlots = 8;

// The lists whose entries are per-node series, in the order report.js scans them.
std::vector<const Json*> per_node_series(const Json& model) {
  return {&arr(model, {"series", "records_per_s"}),   &arr(model, {"series", "lateness_p99_us"}),
          &arr(model, {"series", "lateness_max_us"}), &arr(model, {"series", "failed"}),
          &arr(model, {"contention", "share_ops"}),   &arr(model, {"contention", "share_bytes"})};
}

}  // namespace

SeriesColours series_colours(const Json& model) {
  SeriesColours colours;
  int next = 0;
  for (const Json* list : per_node_series(model)) {
    for (const Json& s : *list) {
      std::string name = str(s, {"name"});
      if (colours.count(name)) continue;
      colours[name] = name == "others" ? -1 : next++ % kPaletteSlots;
    }
  }
  return colours;
}

std::string swatch_slot(int slot) {
  std::string cls = slot < 0 ? "c-others" : "c" + std::to_string(slot % kPaletteSlots);
  return "<i class=\"swatch " + cls + "\"></i>";
}

std::string swatch(const SeriesColours& colours, const std::string& name) {
  auto it = colours.find(name);
  // A blank square keeps names of nodes without a series aligned with those that have one.
  return it == colours.end() ? "<i class=\"swatch blank\"></i>" : swatch_slot(it->second);
}

std::optional<SeriesStats> series_stats(const Json& points) {
  SeriesStats s;
  double sum = 0;
  for (const Json& p : points) {
    if (!p.is_array() || p.size() < 2 || !p[0].is_number() || !p[1].is_number()) continue;
    double t = p[0].get<double>(), v = p[1].get<double>();
    if (!std::isfinite(v)) continue;
    if (s.points == 0 || v < s.min) s.min = v;
    if (s.points == 0 || v > s.max) s.max = v, s.max_at = t;
    sum += v;
    ++s.points;
  }
  if (s.points == 0) return std::nullopt;
  s.mean = sum / static_cast<double>(s.points);
  return s;
}

std::string series_summary_table(const Json& series_list, const SeriesColours& colours,
                                 const std::function<std::string(Number)>& format,
                                 const std::string& caption) {
  std::vector<std::vector<Cell>> rows;
  for (const Json& series : series_list) {
    auto s = series_stats(arr(series, {"points"}));
    if (!s) continue;
    std::string name = str(series, {"name"});
    rows.push_back({Cell::raw(swatch(colours, name) + escape(name)),
                    Cell::number(fmt_exact(static_cast<double>(s->points))),
                    Cell::number(format(s->mean)), Cell::number(format(s->min)),
                    Cell::number(format(s->max)), Cell::number(fmt_seconds(s->max_at))});
  }
  if (rows.empty()) return "";
  return table({{"Series"},
                {"Windows", true, "points in the series"},
                {"Mean", true, "mean over windows"},
                {"Min", true},
                {"Max", true},
                {"Max at", true, "time since the run started"}},
               rows, {"", "compact", caption});
}

}  // namespace fleet::report::html
