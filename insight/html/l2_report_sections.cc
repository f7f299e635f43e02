#include "l2_report_sections.h"

#include <vector>

#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/number_format.h"
#include "fleet/insight/html/series_view.h"

namespace fleet::report::html {

namespace {

// The kind's colour slot, fixed so a kind has one colour in every chart and table.
int kind_slot(const std::string& kind) {
  static const char* const kKinds[] = {"store", "lookup_task", "load_task", "unlock", "delete"};
  for (int i = 0; i < 5; ++i)
    if (kind == kKinds[i]) return i;
  return -1;
}

Cell kind_cell(const Json& k) {
  const std::string kind = str(k, {"kind"});
  return Cell::raw(swatch_slot(kind_slot(kind)) + "<strong>" + escape(kind) + "</strong>");
}

Cell count_cell(const Json& j, Path path) {
  const Number v = num(j, path);
  return Cell::number(fmt_count(v), v);
}

Cell seconds_cell(const Json& j, Path path) {
  const Number v = num(j, path);
  return Cell::number(fmt_seconds(v), v);
}

Cell bad_if_positive(Cell c, Number v) {
  if (v && *v > 0) c.html = "<span class=\"bad\">" + c.html + "</span>";
  return c;
}

std::string fixed(Number v, const char* format) {
  if (!v) return kMissing;
  char b[64];
  std::snprintf(b, sizeof b, format, *v);
  return b;
}

std::string kinds_table(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  for (const Json& k : arr(model, {"kinds"})) {
    rows.push_back(
        {kind_cell(k), count_cell(k, {"submitted"}), count_cell(k, {"completed"}),
         bad_if_positive(count_cell(k, {"failed"}), num(k, {"failed"})),
         Cell::number(fmt_bytes(num(k, {"bytes_submitted"})), num(k, {"bytes_submitted"})),
         Cell::number(fmt_bytes(num(k, {"bytes_moved"})), num(k, {"bytes_moved"})),
         Cell::number(fmt_rate(num(k, {"operations_per_second"})),
                      num(k, {"operations_per_second"}))});
  }
  if (rows.empty()) return no_data("No operation was issued in this run.");
  return table({{"Operation"},
                {"Issued", true},
                {"Completed", true, "completions seen (unlocks and deletes have none)"},
                {"Failed", true, "stores the target reported failed"},
                {"Bytes submitted", true, "Σ object_sizes of the issued stores and loads"},
                {"Bytes moved", true, "what the adapter reported written or read"},
                {"Issued/s", true, "over the whole replay"}},
               rows, {"l2-kinds-rows", "", "Operations per kind"});
}

}  // namespace

std::string l2_run_section(const Json& model) {
  const Json& r = obj(model, {"run"});
  const std::string percent = fixed(num(r, {"trace_percent"}), "%g %%");
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Trace", escape(str(r, {"trace"}))},
      {"Target adapter", escape(str(r, {"adapter"}))},
      {"Speed", fixed(num(r, {"speed"}), "%g×") +
                    (num(r, {"speed"}) == 0.0 ? " (as fast as possible)" : "")},
      {"Trace percent", percent + " (" + fmt_exact(num(r, {"operations_selected"})) + " of " +
                            fmt_exact(num(r, {"source_operations_total"})) + " submissions)"},
      {"Operations issued", fmt_exact(num(r, {"operations"}))},
      {"Replay time", fmt_seconds(num(r, {"total_replay_seconds"})) + " (drain " +
                          fmt_seconds(num(r, {"drain_seconds"})) + ")"},
      {"Operations per second", fmt_rate(num(r, {"operations_per_second"}))},
      {"Bytes submitted", fmt_bytes(num(r, {"total_bytes_submitted"})) + " (" +
                              fmt_bytes(num(r, {"throughput_bytes_per_second"})) + "/s)"},
      {"Submission window",
       "trace " + fmt_seconds(num(r, {"trace_submission_window_seconds"})) + ", scaled target " +
           fmt_seconds(num(r, {"scaled_target_submission_window_seconds"})) + ", actual " +
           fmt_seconds(num(r, {"actual_submission_window_seconds"}))}};
  return section("run", "The run",
                 "An L2 adapter-level trace replayed against one L2 adapter, no StorageManager "
                 "in between (docs/l2-traces.md).",
                 kv_table(rows));
}

std::string l2_operations_section(const Json& model) {
  std::string charts;
  if (!arr(model, {"l2_series", "dispatched"}).empty()) {
    charts = chart_grid(
        figure({"l2_ops_time", "Operations per second, per kind",
                "Solid: issued in that second; dashed: completed in it. A second with nothing "
                "issued or completed reads as 0."}) +
        figure({"l2_latency_time", "Latency per second, per kind",
                "p99 (solid) and p50 (dashed) of the completions in each second, log axis."}) +
        figure({"l2_bytes_time", "Bytes moved per second, per kind",
                "What the adapter reported written (stores) or read (loads), per second."}));
  } else {
    charts = no_data("This run's stats have no timeline (written before it was recorded).");
  }
  return section("operations", "Operations over time", "", charts + kinds_table(model));
}

std::string l2_waits_section(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  for (const Json& k : arr(model, {"kinds"})) {
    rows.push_back({kind_cell(k), seconds_cell(k, {"schedule_lag_max_s"}),
                    seconds_cell(k, {"schedule_lag_mean_s"}),
                    seconds_cell(k, {"dependency_wait_max_s"}),
                    seconds_cell(k, {"dependency_wait_total_s"})});
  }
  const Json& w = obj(model, {"waits"});
  std::string body;
  if (!arr(model, {"l2_series", "schedule_lag_max_s"}).empty()) {
    body += chart_grid(figure({"l2_lag_time", "Schedule lag per second, per kind",
                               "The largest (dispatch − scaled target) of the operations issued "
                               "in each second: how far behind the schedule the replay ran."}));
  }
  body += table({{"Operation"},
                 {"Lag max", true, "dispatched − scaled target"},
                 {"Lag mean", true},
                 {"Dependency wait max", true, "max(target, dependencies done) − target"},
                 {"Dependency wait total", true}},
                rows, {"l2-waits-rows", "", "Schedule lag and dependency waits per kind"});
  body += kv_table(
      {{"Schedule lag", "max " + fmt_seconds(num(w, {"max_schedule_lag_s"})) + ", mean " +
                            fmt_seconds(num(w, {"mean_schedule_lag_s"}))},
       {"Dependency wait", "max " + fmt_seconds(num(w, {"max_dependency_wait_s"})) + ", total " +
                               fmt_seconds(num(w, {"total_dependency_wait_s"}))},
       {"Loop wait (the fork's buffer wait)", "max " + fmt_seconds(num(w, {"max_loop_wait_s"})) +
                                                  ", total " +
                                                  fmt_seconds(num(w, {"total_loop_wait_s"}))}});
  return section("waits", "Dependency waits and schedule lag",
                 "An operation goes out at max(its scaled target, its last dependency's "
                 "completion); the lag is how much later than its target it went.",
                 body);
}

std::string l2_outcomes_section(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  for (const Json& k : arr(model, {"kinds"})) {
    const Number n = num(k, {"outcome_comparisons"}), bad = num(k, {"outcome_mismatches"});
    if (!n || *n == 0) continue;
    rows.push_back({kind_cell(k), count_cell(k, {"outcome_comparisons"}),
                    bad_if_positive(count_cell(k, {"outcome_mismatches"}), bad),
                    Cell::number(fmt_percent(bad ? *bad / *n : Number()))});
  }
  std::string body = rows.empty()
                         ? no_data("No operation was compared with the source.")
                         : table({{"Operation"},
                                  {"Compared", true},
                                  {"Mismatches", true, "outcome differs from the source's"},
                                  {"Rate", true}},
                                 rows, {"l2-outcomes-rows", "", "Outcome mismatches per kind"});
  std::string samples;
  for (const Json& s : arr(model, {"mismatch_samples"}))
    if (s.is_string()) samples += "<li><code>" + escape(s.get<std::string>()) + "</code></li>";
  if (!samples.empty())
    body += "<p>First mismatches (at most 10):</p><ul class=\"samples\">" + samples + "</ul>";
  return section("outcomes", "Outcomes vs the source",
                 "A store matches when its success equals the source's; a lookup when its hit "
                 "indices do; a load when its success indices do. Unlocks and deletes are not "
                 "compared.",
                 body);
}

std::string l2_plan_section(const Json& model) {
  const Json& p = obj(model, {"plan"});
  std::vector<std::vector<Cell>> rows;
  for (const auto& [edge, n] : obj(p, {"dependency_edges"}).items()) {
    const Number v = n.is_number() ? Number(n.get<double>()) : Number();
    rows.push_back({Cell::text(edge), Cell::number(fmt_exact(v), v)});
  }
  std::string body = rows.empty()
                         ? no_data("No dependency edge in the plan.")
                         : table({{"Dependent → dependency"}, {"Edges", true}}, rows,
                                 {"l2-edges-rows", "compact", "Dependency edges per kind"});
  auto code = [](const std::string& s) {
    return s.empty() ? std::string(kMissing) : "<code>" + escape(s) + "</code>";
  };
  std::vector<std::pair<std::string, std::string>> kv = {
      {"Forward edges", fmt_exact(num(p, {"forward_edges"})) +
                            " (the dependency is published later in the file: normal)"},
      {"Overlapping store hits", fmt_exact(num(p, {"overlapping_store_hits"})) +
                                     " (the store completed while the lookup was in flight)"},
      {"To prepare", fmt_exact(num(p, {"prepare_objects"})) + " objects, " +
                         fmt_bytes(num(p, {"prepare_bytes"}))},
      {"Plan SHA-256",
       code(str(p, {"plan_sha256"})) + " (operations, their edges and the prepared objects)"}};
  const Json& m = obj(p, {"prepared"});
  kv.emplace_back("Preparation", m.empty()
                                     ? "not run (no --prepare-l2)"
                                     : fmt_exact(num(m, {"prepared_objects"})) + " objects, " +
                                           fmt_bytes(num(m, {"prepared_bytes"})) + " stored in " +
                                           fmt_seconds(num(m, {"elapsed_seconds"})) + "; " +
                                           fmt_exact(num(m, {"store_tasks_failed"})) +
                                           " store tasks failed");
  body += kv_table(kv);
  return section("plan", "The plan", "The fork's minimal causal edges, as built from the trace.",
                 body);
}

std::string l2_nodes_section(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  for (const Json& n : arr(model, {"nodes"})) {
    for (const Json& k : arr(n, {"kinds"})) {
      rows.push_back({Cell::text(str(n, {"name"})), kind_cell(k), count_cell(k, {"submitted"}),
                      count_cell(k, {"completed"}), Cell::number(fmt_ms(num(k, {"p99_ms"}))),
                      count_cell(k, {"outcome_mismatches"})});
    }
  }
  if (rows.empty()) return "";
  return section("nodes", "Nodes", "",
                 table({{"Node"},
                        {"Operation"},
                        {"Issued", true},
                        {"Completed", true},
                        {"p99", true},
                        {"Mismatches", true}},
                       rows, {"l2-nodes-rows", "sortable", "Per node and kind"}));
}

}  // namespace fleet::report::html
