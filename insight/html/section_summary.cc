// The top of the page: the verdict banner and "The run" (what was replayed, how, and whether
// every node replayed the same trace).
#include <cstdio>

#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/number_format.h"
#include "fleet/insight/html/report_sections.h"

namespace fleet::report::html {

namespace {

// More nodes than this and the digest table starts collapsed.
constexpr size_t kOpenDigestRows = 8;

// ok / warn / fail, or "unknown" for anything else: the CSS class of a level.
std::string level_class(const std::string& level) {
  if (level == "ok" || level == "warn" || level == "fail") return level;
  return "unknown";
}

const char* level_icon(const std::string& level) {
  if (level == "ok") return "✓";
  if (level == "warn") return "!";
  if (level == "fail") return "✗";
  return "·";
}

const char* status_headline(const std::string& status) {
  if (status == "ok") return "Run OK";
  if (status == "warn") return "Run finished with warnings";
  if (status == "fail") return "Run failed checks";
  return "No verdict recorded";
}

std::string tile(const std::string& label, const std::string& value, const std::string& sub) {
  std::string out = "<div class=\"tile\"><div class=\"tile-label\">" + escape(label) +
                    "</div><div class=\"tile-value\">" + value + "</div>";
  if (!sub.empty()) out += "<div class=\"tile-sub\">" + sub + "</div>";
  return out + "</div>";
}

std::string code_or_missing(const std::string& s) {
  return s.empty() ? kMissing : "<code>" + escape(s) + "</code>";
}

std::string text_or_missing(const std::string& s) { return s.empty() ? kMissing : escape(s); }

std::string digests_table(const Json& model) {
  std::vector<std::vector<Cell>> rows;
  size_t differ = 0;
  for (const Json& d : arr(model, {"run", "digests"})) {
    const Json* match = at(d, {"matches_trace"});
    std::string mark = kMissing;
    if (match && match->is_boolean()) {
      differ += match->get<bool>() ? 0 : 1;
      mark = match->get<bool>() ? "<span class=\"good\">✓ match</span>"
                                : "<span class=\"bad\">✗ differs</span>";
    }
    rows.push_back({Cell::text(str(d, {"node"})), Cell::raw(code_or_missing(str(d, {"digest"}))),
                    Cell::raw(mark)});
  }
  if (rows.empty()) return "";
  const std::string html = table({{"Node"}, {"Replay digest"}, {"Same as trace"}}, rows,
                                 {"digests-rows", "compact", "Digest per node"});
  if (rows.size() <= kOpenDigestRows) return html;
  // A big fleet's list would push the rest of the page down: one line, the table on demand.
  std::string summary = differ == 0
                            ? "all " + std::to_string(rows.size()) + " nodes match the trace"
                            : std::to_string(differ) + " of " + std::to_string(rows.size()) +
                                  " nodes differ from the trace";
  return "<details class=\"digests\"><summary>Digest per node: <span class=\"" +
         std::string(differ ? "bad" : "good") + "\">" + summary + "</span></summary>" + html +
         "</details>";
}

std::string plan_table(const Json& model) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& [key, value] : obj(model, {"run", "plan"}).items()) {
    rows.emplace_back(key, json_html(value, 1));
  }
  if (rows.empty()) return "";
  return "<div class=\"table-wrap\"><h3>Shard plan</h3>" + kv_table(rows) + "</div>";
}

}  // namespace

std::string verdict_section(const Json& model) {
  std::string status = str(model, {"verdict", "status"});
  std::string out = "<section id=\"verdict\" class=\"verdict level-" + level_class(status) +
                    "\"><div class=\"verdict-head\"><span class=\"verdict-icon\">" +
                    level_icon(status) + "</span><h2>" + status_headline(status) + "</h2>";
  if (flag(model, {"partial"})) {
    out += badge("partial", "PARTIAL RUN");
    std::string reason = str(model, {"partial_reason"});
    out += "<span class=\"partial-reason\">" +
           escape(reason.empty() ? "the run did not finish; no reason recorded" : reason) +
           "</span>";
  }
  out += "</div><ul class=\"verdict-items\">";
  for (const Json& item : arr(model, {"verdict", "items"})) {
    std::string level = str(item, {"level"});
    std::string title = str(item, {"title"});
    out += "<li class=\"level-" + level_class(level) + "\"><span class=\"item-icon\">" +
           level_icon(level) + "</span>";
    if (!title.empty()) out += "<strong>" + escape(title) + ".</strong> ";
    out += escape(str(item, {"text"})) + "</li>";
  }
  return out + "</ul></section>";
}

namespace {

// What a fleet run's T0 waited for, as one table cell ("" for a run without a T0 decision).
std::string t0_row(const Json& model) {
  const std::string waited = str(model, {"run", "start", "waited_for"});
  if (waited.empty()) return "";
  auto ms = [&](const char* key) {
    const Number v = num(model, {"run", "start", key});
    if (!v) return std::string(kMissing);
    char b[32];
    std::snprintf(b, sizeof b, "%.1f ms", *v);
    return std::string(b);
  };
  return escape(ms("t0_after_handshake_ms") + " after the handshake, waited for " + waited +
                " (last ready " + ms("last_ready_after_handshake_ms") + ", first batches queued " +
                ms("queued_after_handshake_ms") + ", margin " + ms("margin_ms") +
                "; slowest engine " + str(model, {"run", "start", "slowest_engine_node"}) + " " +
                ms("slowest_engine_build_ms") + ")");
}

// What --route-cache did, as one table cell ("" for a run without it).
std::string route_plan_row(const Json& model) {
  if (obj(model, {"run", "route_plan"}).empty()) return "";
  const std::string file = str(model, {"run", "route_plan", "file"});
  const std::string why = str(model, {"run", "route_plan", "why_not"});
  std::string out;
  if (flag(model, {"run", "route_plan", "replayed"})) {
    out = "replayed the saved plan " + code_or_missing(file);
  } else if (flag(model, {"run", "route_plan", "saved"})) {
    out = "routed the trace; plan saved to " + code_or_missing(file);
  } else {
    out = "routed the trace; no plan saved";
  }
  if (!why.empty()) out += " (" + escape(why) + ")";
  return out;
}

}  // namespace

std::string run_section(const Json& model) {
  const Number total = num(model, {"run", "records", "total"});
  const Number replayed = num(model, {"run", "records", "replayed"});
  const Number skipped = num(model, {"run", "records", "skipped"});
  const Number failed = num(model, {"run", "records", "failed"});
  Number nodes = num(model, {"run", "nodes"});
  if (!nodes && !arr(model, {"nodes"}).empty()) nodes = arr(model, {"nodes"}).size();

  std::string tiles = "<div class=\"tiles\">";
  tiles += tile("Records replayed", fmt_count(replayed), "of " + fmt_count(total));
  tiles += tile("Records/s", fmt_count(num(model, {"run", "records_per_s"})), "");
  tiles += tile("Duration", fmt_seconds(num(model, {"run", "duration_s"})), "");
  tiles += tile("Nodes", fmt_count(nodes), text_or_missing(str(model, {"run", "mode"})));
  tiles += tile("Failed · skipped", fmt_count(failed) + " · " + fmt_count(skipped), "");
  tiles += "</div>";

  const std::string trace = kv_table({
      {"Trace", code_or_missing(str(model, {"run", "trace"}))},
      {"Level", text_or_missing(str(model, {"run", "level"}))},
      {"Schema", text_or_missing(str(model, {"run", "schema"}))},
      {"Header digest", code_or_missing(str(model, {"run", "header_digest"}))},
      {"Digest comparison", text_or_missing(str(model, {"run", "digest_comparison"}))},
  });
  Number speed = num(model, {"run", "speed"});
  std::vector<std::pair<std::string, std::string>> replay_rows = {
      {"Mode", text_or_missing(str(model, {"run", "mode"}))},
      {"Clock", text_or_missing(str(model, {"run", "clock"}))},
      {"Speed", speed ? fmt_count(speed) + "×" : kMissing},
      {"Nodes", fmt_exact(nodes)},
      {"Duration", fmt_seconds(num(model, {"run", "duration_s"}))},
      {"Records", !total && !replayed
                      ? kMissing
                      : fmt_exact(total) + " total · " + fmt_exact(replayed) + " replayed · " +
                            fmt_exact(skipped) + " skipped · " + fmt_exact(failed) + " failed"},
      {"Records/s", fmt_rate(num(model, {"run", "records_per_s"}))},
  };
  if (std::string t0 = t0_row(model); !t0.empty()) replay_rows.push_back({"T0", std::move(t0)});
  if (std::string plan = route_plan_row(model); !plan.empty())
    replay_rows.push_back({"Routing plan", std::move(plan)});
  const std::string replay = kv_table(replay_rows);
  std::string body = tiles + "<div class=\"two-col\"><div><h3>Trace</h3>" + trace +
                     "</div><div><h3>Replay</h3>" + replay + "</div></div>";
  // The plan can hold a table per worker: it gets the full width.
  body += digests_table(model) + plan_table(model);
  return section("run", "The run", "", body);
}

}  // namespace fleet::report::html
