#include "compare_sections.h"

#include "compare_cells.h"
#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/number_format.h"

namespace fleet::compare {

namespace {

using namespace report::html;

std::string text_or_missing(const std::string& s) { return s.empty() ? kMissing : escape(s); }
std::string code_or_missing(const std::string& s) {
  return s.empty() ? kMissing : "<code>" + escape(s) + "</code>";
}

std::string item(const std::string& level, const std::string& title, const std::string& text) {
  const char* icon = level == "ok" ? "✓" : level == "fail" ? "✗" : level == "warn" ? "!" : "·";
  return "<li class=\"level-" + level + "\"><span class=\"item-icon\">" + icon + "</span><strong>" +
         escape(title) + ".</strong> " + escape(text) + "</li>";
}

std::string count_text(Number n) { return fmt_exact(n ? *n : 0); }

std::string side_table(const Json& model, const char* side) {
  const Json& s = obj(model, {side});
  const Number speed = num(s, {"speed"});
  std::string partial = "no";
  if (flag(s, {"partial"})) {
    partial = badge("partial", "PARTIAL RUN") + " <span class=\"partial-reason\">" +
              escape(str(s, {"partial_reason"})) + "</span>";
  }
  return kv_table({{"Directory", code_or_missing(str(s, {"dir"}))},
                   {"Partial", partial},
                   {"Trace", code_or_missing(str(s, {"trace"}))},
                   {"Mode", text_or_missing(str(s, {"mode"}))},
                   {"Clock", text_or_missing(str(s, {"clock"}))},
                   {"Speed", speed ? fmt_count(speed) + "×" : kMissing},
                   {"Nodes", fmt_exact(num(s, {"nodes"}))},
                   {"Engine", text_or_missing(str(s, {"engine"}))},
                   {"Config digest", code_or_missing(str(s, {"config_digest"}))},
                   {"Digest comparison", text_or_missing(str(s, {"digest_comparison"}))}});
}

Format format_of_op_stat(const std::string& stat) {
  return stat == "count" || stat == "errors" ? fmt_exact : fmt_ms;
}

std::string ops_table(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  for (const Json& op : arr(model, {"ops"})) {
    const std::string presence = str(op, {"presence"});
    std::string name = "<strong>" + escape(str(op, {"short"})) + "</strong>";
    if (presence == "added") name += " " + badge("ok", "added in B");
    if (presence == "removed") name += " " + badge("fail", "removed in B");
    name += "<div class=\"qual\">" + escape(str(op, {"qualname"})) + "</div>";
    const std::string note = str(op, {"ci_note"});
    if (!note.empty()) name += "<div class=\"qual\">no interval: " + escape(note) + "</div>";
    bool first = true;
    for (const char* stat : {"count", "errors", "p50", "p90", "p99", "mean"}) {
      const Json* change = at(op, {"stats", stat});
      if (!change) continue;
      // The op's name once, on its first row.
      std::vector<Cell> row = {Cell::raw(first ? name : "")};
      first = false;
      for (Cell& c : change_cells(Cell::text(stat), *change, format_of_op_stat(stat))) {
        row.push_back(std::move(c));
      }
      rows.push_back(std::move(row));
    }
  }
  if (rows.empty()) return no_data("Neither run recorded an operation.");
  std::vector<Column> columns = change_columns("Operation");
  columns.insert(columns.begin() + 1, Column("Statistic"));
  return table(columns, rows, {"compare-ops-rows", "compact", "Latency per operation"});
}

std::string group_table(const Json& group, const std::vector<std::pair<std::string, Format>>& keys,
                        const std::string& first, const std::string& tbody_id,
                        const std::string& caption) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& [key, format] : keys) {
    const Json* change = at(group, {key});
    if (change) rows.push_back(change_cells(Cell::text(key), *change, format));
  }
  if (rows.empty()) return "";
  return table(change_columns(first), rows, {tbody_id, "compact", caption});
}

std::string rate(Number v) { return fmt_percent(v); }
std::string seconds(Number v) { return fmt_seconds(v); }
std::string per_second(Number v) { return fmt_rate(v); }
std::string micros(Number v) { return fmt_us(v); }

}  // namespace

std::string verdict_section(const Json& model) {
  const Json& outcomes = arr(model, {"thresholds"});
  const Number crossed = num(model, {"summary", "thresholds_crossed"});
  std::string level = "unknown", headline = "A → B compared";
  if (!outcomes.empty()) {
    const bool any = crossed && *crossed > 0;
    level = any ? "fail" : "ok";
    headline = any ? fmt_exact(crossed) + " threshold(s) crossed" : "No threshold crossed";
  }
  std::string out = "<section id=\"verdict\" class=\"verdict level-" + level +
                    "\"><div class=\"verdict-head\"><span class=\"verdict-icon\">" +
                    (level == "fail" ? "✗"
                     : level == "ok" ? "✓"
                                     : "·") +
                    "</span><h2>" + escape(headline) + "</h2>";
  if (flag(model, {"partial"})) out += badge("partial", "PARTIAL INPUT");
  out += "</div><ul class=\"verdict-items\">";
  for (const char* side : {"a", "b"}) {
    if (flag(model, {side, "partial"})) {
      out += item("warn", std::string("Run ") + (side[0] == 'a' ? "A" : "B") + " is partial",
                  str(model, {side, "partial_reason"}) + ": its numbers cover part of the run.");
    }
  }
  const Number significant = num(model, {"summary", "significant_latency_changes"});
  const Number with_ci = num(model, {"summary", "latency_statistics_with_interval"});
  out += item(significant && *significant > 0 ? "warn" : "ok", "Latency",
              count_text(significant) + " of " + count_text(with_ci) +
                  " latency statistics changed significantly (95 % interval excludes 0).");
  const Number l1 = num(model, {"cache", "l1_hit_rate", "change"});
  if (l1) {
    out += item("unknown", "Cache",
                "L1 hit rate " + fmt_percent(num(model, {"cache", "l1_hit_rate", "a"})) + " → " +
                    fmt_percent(num(model, {"cache", "l1_hit_rate", "b"})) + " (" +
                    (str(model, {"cache", "l1_hit_rate", "significance"}) == "not_significant"
                         ? "no significant change"
                         : "significant") +
                    ").");
  }
  const Number diffs = num(model, {"summary", "config_differences"});
  out += item(diffs && *diffs > 0 ? "warn" : "ok", "Config",
              diffs && *diffs > 0 ? count_text(diffs) + " engine config field(s) differ."
                                  : "The engine configs are the same field by field.");
  for (const Json& o : outcomes) {
    const std::string lvl = flag(o, {"crossed"}) ? "fail" : flag(o, {"evaluated"}) ? "ok" : "warn";
    out += item(lvl, "Threshold", str(o, {"message"}));
  }
  return out + "</ul></section>";
}

std::string runs_section(const Json& model) {
  return section("runs", "The runs", "Run A is the baseline; every change is B − A.",
                 "<div class=\"two-col\"><div><h3>A</h3>" + side_table(model, "a") +
                     "</div><div><h3>B</h3>" + side_table(model, "b") + "</div></div>");
}

std::string latency_section(const Json& model) {
  const std::string charts = chart_grid(
      figure({"cmp_p99", "p99 latency per operation, A vs B",
              "Grey bars are run A, blue bars run B. The whisker on a B bar is A's p99 plus the "
              "95 % interval of the change: a whisker that reaches A's bar top is no "
              "significant change.",
              300}) +
      figure({"cmp_cdf", "Latency distribution per operation (CDF), A vs B",
              "For a latency x, the share of an operation's calls that took at most x; run A "
              "solid, run B dashed, one colour per operation. B's line to the right of A's is a "
              "slowdown.",
              300}));
  return section("latency", "Latency per operation",
                 "Exact statistics from each run's <code>ops</code>; the 95 % interval of each "
                 "change is a bootstrap over the runs' latency histograms (" +
                     fmt_exact(num(model, {"method", "resamples"})) + " resamples, seed " +
                     fmt_exact(num(model, {"method", "seed"})) + ").",
                 charts + ops_table(model));
}

std::string cache_section(const Json& model) {
  const Json* cache = at(model, {"cache"});
  if (!cache || !cache->is_object()) return "";
  const std::string chart = chart_grid(figure(
      {"cmp_rates", "Lookup outcome per tier, A vs B",
       "Share of LOOKUP keys served from L1, from L2, from either, and missed, in each run; the "
       "whisker on a B bar is A's rate plus the 95 % interval of the change.",
       280}));
  const std::string rates = group_table(*cache,
                                        {{"l1_hit_rate", rate},
                                         {"l2_hit_rate", rate},
                                         {"l1_l2_hit_rate", rate},
                                         {"miss_rate", rate},
                                         {"lookup_keys", fmt_exact}},
                                        "Rate", "compare-cache-rows", "Hit rates");
  // Runs that classified their misses: how many, whom they blame (docs/causal-pacing.md).
  std::string misses;
  if (const Json* m = at(model, {"misses"}); m && m->is_object()) {
    misses = group_table(*m,
                         {{"total", fmt_exact},
                          {"compression", fmt_exact},
                          {"environment", fmt_exact},
                          {"trace", fmt_exact},
                          {"follows", fmt_exact},
                          {"only_this_run", fmt_exact}},
                         "Misses", "compare-miss-rows", "Misses by blame");
  }
  return section("cache", "Cache",
                 "Rates are fractions of the LOOKUP keys; their intervals are Newcombe's score "
                 "interval for a difference of two proportions, on the key counts.",
                 chart + rates + misses);
}

std::string records_section(const Json& model) {
  const std::string records = group_table(obj(model, {"records"}),
                                          {{"total", fmt_exact},
                                           {"replayed", fmt_exact},
                                           {"skipped", fmt_exact},
                                           {"failed", fmt_exact},
                                           {"duration_s", seconds},
                                           {"records_per_s", per_second}},
                                          "Records", "compare-records-rows", "Records");
  const std::string lateness =
      group_table(obj(model, {"lateness_us"}),
                  {{"p50", micros}, {"p99", micros}, {"max", micros}, {"late_over_1ms", fmt_exact}},
                  "Lateness", "compare-lateness-rows", "Lateness");
  return section("records", "Records and lateness",
                 "No interval: these are one number per run, with no sample to resample.",
                 records + lateness);
}

std::string config_section(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  for (const Json& d : arr(model, {"config", "differences"})) {
    rows.push_back({Cell::raw("<code>" + escape(str(d, {"path"})) + "</code>"),
                    Cell::text(str(d, {"kind"})),
                    Cell::raw(at(d, {"a"}) ? json_value_html(*at(d, {"a"})) : kMissing),
                    Cell::raw(at(d, {"b"}) ? json_value_html(*at(d, {"b"})) : kMissing)});
  }
  const std::string digests =
      kv_table({{"A", code_or_missing(str(model, {"config", "digest_a"}))},
                {"B", code_or_missing(str(model, {"config", "digest_b"}))}});
  std::string body = "<h3>Config digests</h3>" + digests;
  if (!flag(model, {"config", "compared"})) {
    body += no_data("A run recorded no engine.config: nothing to compare field by field.");
  } else if (rows.empty()) {
    body += no_data("Every field of the engine config is the same.");
  } else {
    body += table({{"Field"}, {"Change"}, {"A"}, {"B"}}, rows,
                  {"config-rows", "compact", "Fields that differ"});
  }
  return section("config", "Engine config",
                 "LMCache's StorageManagerConfig of each run (<code>engine.config</code>), "
                 "compared field by field; nested objects and lists by path.",
                 body);
}

std::string thresholds_section(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  for (const Json& o : arr(model, {"thresholds"})) {
    std::string status = flag(o, {"crossed"})           ? badge("fail", "crossed")
                         : flag(o, {"not_significant"}) ? badge("warn", "not significant")
                         : flag(o, {"evaluated"})       ? badge("ok", "ok")
                                                        : badge("", "not evaluated");
    rows.push_back({Cell::raw("<code>" + escape(str(o, {"expression"})) + "</code>"),
                    Cell::raw(status), Cell::text(str(o, {"message"}))});
  }
  if (rows.empty()) return "";
  return section("thresholds", "Thresholds", "The <code>--fail-on</code> expressions.",
                 table({{"Expression"}, {"Status"}, {"What was compared"}}, rows,
                       {"threshold-rows", "compact", ""}));
}

}  // namespace fleet::compare
