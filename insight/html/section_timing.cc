// Timing sections: throughput over time, lateness (how far behind the trace's clock records
// were dispatched) and per-op latency.
#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/number_format.h"
#include "fleet/insight/html/report_sections.h"

namespace fleet::report::html {

namespace {

bool has_points(const Json& series_list) {
  for (const Json& s : series_list) {
    if (!arr(s, {"points"}).empty()) return true;
  }
  return false;
}

bool any_positive_value(const Json& series_list) {
  for (const Json& s : series_list) {
    for (const Json& p : arr(s, {"points"})) {
      if (p.is_array() && p.size() >= 2 && p[1].is_number() && p[1].get<double>() > 0) return true;
    }
  }
  return false;
}

std::string op_short_name(const Json& op) {
  std::string name = str(op, {"short"});
  if (!name.empty()) return name;
  std::string qualname = str(op, {"qualname"});
  size_t dot = qualname.rfind('.');
  return dot == std::string::npos ? qualname : qualname.substr(dot + 1);
}

std::string ops_table(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  int index = 0;
  for (const Json& op : arr(model, {"ops"})) {
    std::string qualname = str(op, {"qualname"});
    std::string name = swatch_slot(index++) + "<strong>" + escape(op_short_name(op)) + "</strong>";
    if (!qualname.empty()) name += "<div class=\"qual\">" + escape(qualname) + "</div>";
    Number errors = num(op, {"errors"});
    Cell errors_cell = Cell::number(fmt_count(errors), errors);
    if (errors && *errors > 0)
      errors_cell.html = "<span class=\"bad\">" + errors_cell.html + "</span>";
    rows.push_back(
        {Cell::raw(name), Cell::number(fmt_count(num(op, {"count"})), num(op, {"count"})),
         errors_cell, Cell::number(fmt_ms(num(op, {"mean_ms"}))),
         Cell::number(fmt_ms(num(op, {"p50_ms"}))), Cell::number(fmt_ms(num(op, {"p90_ms"}))),
         Cell::number(fmt_ms(num(op, {"p99_ms"}))), Cell::number(fmt_ms(num(op, {"max_ms"})))});
  }
  if (rows.empty()) return no_data("No operation was recorded in this run.");
  return table({{"Operation"},
                {"Calls", true, "successful calls (each adds a latency sample)"},
                {"Errors", true, "calls the engine failed"},
                {"Mean", true},
                {"p50", true},
                {"p90", true},
                {"p99", true},
                {"Max", true}},
               rows, {"ops-rows", "", "Latency per operation"});
}

std::string lateness_table(const Json& model) {
  const Json& l = obj(model, {"lateness"});
  if (l.empty()) return no_data("No lateness was recorded in this run.");
  return table({{"Records", true},
                {"p50", true},
                {"p99", true},
                {"Max", true},
                {"Later than 1 ms", true},
                {"Feed late", true, "records the feed (reading, routing) delivered late"},
                {"Engine late", true, "records the engine was still busy for"}},
               {{Cell::number(fmt_count(num(l, {"records"})), num(l, {"records"})),
                 Cell::number(fmt_us(num(l, {"p50_us"}))), Cell::number(fmt_us(num(l, {"p99_us"}))),
                 Cell::number(fmt_us(num(l, {"max_us"}))),
                 Cell::number(fmt_count(num(l, {"late_over_1ms"})), num(l, {"late_over_1ms"})),
                 Cell::number(fmt_count(num(l, {"feed_late"})), num(l, {"feed_late"})),
                 Cell::number(fmt_count(num(l, {"engine_late"})), num(l, {"engine_late"}))}},
               {"lateness-rows", "", "Lateness over the whole run"});
}

}  // namespace

std::string throughput_section(const Json& model, const SeriesColours& colours) {
  const Json& rate = arr(model, {"series", "records_per_s"});
  const Json& failed = arr(model, {"series", "failed"});
  std::string figures;
  if (has_points(rate)) {
    figures += figure({"throughput", "Records per second",
                       "One line per node (the busiest nodes; the rest summed as grey "
                       "<em>others</em>). x: time since the run started; y: records "
                       "replayed per second in that window. A flat line is a steady replay; "
                       "dips show a node falling behind or idle.",
                       300, !any_positive_value(failed)});
  }
  if (any_positive_value(failed)) {
    figures += figure({"failed", "Failed records per window",
                       "Records the engine failed, per node and window. Any line above zero "
                       "deserves a look at the engine counters below."});
  }
  std::string body =
      figures.empty() ? no_data("No throughput series was recorded.") : chart_grid(figures);
  std::string tables =
      series_summary_table(rate, colours, fmt_rate, "Records per second, per window");
  if (any_positive_value(failed)) {
    tables += series_summary_table(failed, colours, fmt_count, "Failed records, per window");
  }
  body += "<div class=\"table-grid\">" + tables + "</div>";
  return section("throughput", "Throughput", "", body);
}

std::string lateness_section(const Json& model, const SeriesColours& colours) {
  const Json& p99 = arr(model, {"series", "lateness_p99_us"});
  std::string figures;
  if (has_points(p99)) {
    figures += figure({"lateness_time", "Lateness p99 over time",
                       "Solid: each node's p99 lateness per window; dashed: its maximum. "
                       "Lateness is how long after its trace time (scaled by the speed) a "
                       "record was dispatched. Log y axis: each grid line is 10× the one below."});
  }
  if (!arr(model, {"lateness", "cdf"}).empty()) {
    figures += figure({"lateness_cdf", "Lateness distribution (CDF)",
                       "For a lateness x (log axis), the share of records dispatched at most x "
                       "late. A curve that reaches 100 % further left is a more punctual "
                       "replay; records exactly on time sit left of the axis."});
  }
  std::string intro =
      "How far behind the trace's own clock records were dispatched. Small lateness means "
      "the replay kept the trace's timing.";
  std::string body = figures.empty() ? "" : chart_grid(figures);
  body += lateness_table(model);
  body += series_summary_table(p99, colours, fmt_us, "p99 lateness, per window");
  return section("lateness", "Lateness", intro, body);
}

std::string latency_section(const Json& model) {
  bool any_cdf = false;
  for (const Json& op : arr(model, {"ops"})) any_cdf = any_cdf || !arr(op, {"cdf"}).empty();
  std::string body;
  if (any_cdf) {
    body += chart_grid(
        figure({"op_cdf", "Latency distribution per operation (CDF)",
                "One line per operation: for a latency x (log axis, ms), the share of its calls "
                "that took at most x. Markers: ● p50, ◆ p90, ▲ p99. Lines further left are "
                "faster; a long flat tail to the right means rare slow calls.",
                380, true}));
  }
  body += ops_table(model);
  return section("latency", "Latency per operation", "", body);
}

}  // namespace fleet::report::html
