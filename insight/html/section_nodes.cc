// Per-node detail: the nodes table (every node, even 64+) and each node's engine counters.
#include <map>

#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/number_format.h"
#include "fleet/insight/html/report_sections.h"

namespace fleet::report::html {

namespace {

std::string status_badge(const std::string& status) {
  if (status.empty()) return kMissing;
  std::string cls = status == "ok" ? "ok" : status == "lost" ? "fail" : "warn";
  return badge(cls, status);
}

// The digest most nodes share: a node with another one ran a different config.
std::string common_digest(const Json& nodes) {
  std::map<std::string, int> counts;
  for (const Json& n : nodes) ++counts[str(n, {"config_digest"})];
  std::string best;
  int most = 0;
  for (const auto& [digest, count] : counts) {
    if (count > most) best = digest, most = count;
  }
  return best;
}

std::string digest_cell(const std::string& digest, const std::string& common) {
  if (digest.empty()) return kMissing;
  std::string shown = escape(digest.substr(0, 8));
  std::string cls = digest == common ? "digest" : "digest bad";
  return "<code class=\"" + cls + "\" title=\"" + escape(digest) + "\">" + shown + "</code>";
}

Cell count_cell(const Json& n, const char* key) {
  return Cell::number(fmt_count(num(n, {key})), num(n, {key}));
}

// A number shown with `format`, sortable by its raw value.
Cell formatted_cell(const Json& n, const char* key, std::string (*format)(Number)) {
  Cell c = Cell::number(format(num(n, {key})));
  c.sort = num(n, {key});
  return c;
}

}  // namespace

std::string nodes_section(const Json& model, const SeriesColours& colours) {
  const Json& nodes = arr(model, {"nodes"});
  if (nodes.empty()) return section("nodes", "Nodes", "", no_data("No node reported."));
  const std::string common = common_digest(nodes);
  std::vector<std::vector<Cell>> rows;
  for (const Json& n : nodes) {
    std::string name = str(n, {"name"});
    Cell name_cell = Cell::raw(swatch(colours, name) + escape(name));
    name_cell.title = str(n, {"address"});
    rows.push_back(
        {name_cell, Cell::raw(status_badge(str(n, {"status"}))), count_cell(n, "records"),
         count_cell(n, "replayed"), count_cell(n, "skipped"), count_cell(n, "failed"),
         formatted_cell(n, "duration_s", fmt_seconds), count_cell(n, "records_per_s"),
         formatted_cell(n, "lateness_p50_us", fmt_us), formatted_cell(n, "lateness_p99_us", fmt_us),
         formatted_cell(n, "l1_hit_rate", fmt_percent),
         formatted_cell(n, "l2_hit_rate", fmt_percent), formatted_cell(n, "miss_rate", fmt_percent),
         count_cell(n, "l2_ops"), Cell::raw(digest_cell(str(n, {"config_digest"}), common))});
  }
  std::string body =
      table({{"Node", false, "hover a name for its address"},
             {"Status"},
             {"Records", true, "records routed to the node"},
             {"Replayed", true},
             {"Skipped", true},
             {"Failed", true},
             {"Duration", true},
             {"Rec/s", true},
             {"Late p50", true},
             {"Late p99", true},
             {"L1", true, "L1 hit rate"},
             {"L2", true, "L2 hit rate"},
             {"Miss", true, "miss rate"},
             {"L2 ops", true},
             {"Config", false, "config digest; red when it differs from most nodes"}},
            rows, {"nodes-rows", "compact sortable", ""});
  std::string intro = "Every node of the run, one row each. Click a column header to sort.";
  return section("nodes", "Nodes", intro, body);
}

std::string counters_section(const Json& model) {
  const Json& list = arr(model, {"engine_counters"});
  std::string body;
  for (const Json& entry : list) {
    const Json* counters = at(entry, {"counters"});
    size_t n = counters && counters->is_object() ? counters->size() : 0;
    body += "<details class=\"counters\"><summary><strong>" + escape(str(entry, {"node"})) +
            "</strong> <span class=\"muted\">" + std::to_string(n) + " counters</span></summary>";
    body += counters ? json_html(*counters) : kMissing;
    body += "</details>";
  }
  if (body.empty()) body = no_data("No engine counters were recorded.");
  return section("counters", "Engine counters",
                 "What each node's engine counted, as it reported it. Click a node to open.", body);
}

}  // namespace fleet::report::html
