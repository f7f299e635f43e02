// The L2 page's fairness view (issue 42; docs/l2-traces.md "Across the fleet"): how evenly one
// shared L2 served the fleet's nodes. Jain's index over the nodes' operations (1 = every node
// did the same amount; with --shard source that is the recorded servers' own mix), and per
// operation kind over the nodes' p50 and p99 latency (1 = the L2 answered every node alike;
// a node starved by the others pulls it down), with the slowest node named.
#include <string>
#include <vector>

#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/number_format.h"
#include "fleet/insight/report/contention.h"
#include "fleet/summary/l2_run_stats.h"
#include "l2_report_sections.h"

namespace fleet::report::html {

namespace {

// Jain's index, null where undefined (no node did anything).
Json jain(const std::vector<double>& xs) {
  const double j = jain_index(xs);
  return j < 0 ? Json() : Json(j);
}

const summary::L2KindStats* kind_of(const summary::L2NodeStats& n, const std::string& kind) {
  for (const auto& k : n.kinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

Json kind_fairness(const summary::L2RunStats& run, const std::string& kind) {
  std::vector<double> p50, p99;
  Json per_node = Json::array();
  std::string slowest;
  double worst = -1;
  for (const auto& n : run.nodes) {
    const summary::L2KindStats* k = kind_of(n, kind);
    if (!k || k->latency_count == 0) continue;
    p50.push_back(k->latency_p50_ms);
    p99.push_back(k->latency_p99_ms);
    if (k->latency_p99_ms > worst) {
      worst = k->latency_p99_ms;
      slowest = n.name;
    }
    per_node.push_back({{"node", n.name},
                        {"p50_ms", k->latency_p50_ms},
                        {"p99_ms", k->latency_p99_ms},
                        {"completed", k->completed}});
  }
  const summary::L2KindStats* merged = run.kind(kind);
  return {{"kind", kind},
          {"p50_jain", jain(p50)},
          {"p99_jain", jain(p99)},
          {"merged_p99_ms", merged ? Json(merged->latency_p99_ms) : Json()},
          {"slowest_node", slowest},
          {"slowest_p99_ms", worst < 0 ? Json() : Json(worst)},
          {"nodes", std::move(per_node)}};
}

}  // namespace

Json l2_fairness_json(const summary::L2RunStats& run) {
  if (run.nodes.size() < 2) return Json();
  std::vector<double> ops;
  Json nodes = Json::array();
  uint64_t total = 0;
  for (const auto& n : run.nodes) {
    uint64_t done = 0;
    for (const auto& k : n.kinds) done += k.submitted;  // an unlock completes nothing
    ops.push_back(static_cast<double>(done));
    total += done;
    nodes.push_back({{"node", n.name}, {"operations", done}});
  }
  for (Json& n : nodes)
    n["share"] = total ? n["operations"].get<double>() / static_cast<double>(total) : 0.0;
  Json kinds = Json::array();
  for (const auto& k : run.kinds) kinds.push_back(kind_fairness(run, k.kind));
  return {{"operations_jain", jain(ops)}, {"nodes", nodes}, {"kinds", kinds}};
}

std::string l2_fairness_section(const Json& model) {
  const Json& f = obj(model, {"fairness"});
  if (f.empty()) return "";
  std::vector<std::vector<Cell>> shares;
  for (const Json& n : arr(f, {"nodes"})) {
    shares.push_back({Cell::text(str(n, {"node"})),
                      Cell::number(fmt_count(num(n, {"operations"})), num(n, {"operations"})),
                      Cell::number(fmt_percent(num(n, {"share"})))});
  }
  std::vector<std::vector<Cell>> kinds;
  for (const Json& k : arr(f, {"kinds"})) {
    kinds.push_back({Cell::text(str(k, {"kind"})), Cell::number(fmt_ratio(num(k, {"p50_jain"}))),
                     Cell::number(fmt_ratio(num(k, {"p99_jain"}))),
                     Cell::number(fmt_ms(num(k, {"merged_p99_ms"}))),
                     Cell::text(str(k, {"slowest_node"})),
                     Cell::number(fmt_ms(num(k, {"slowest_p99_ms"})))});
  }
  std::string body =
      "<div class=\"tiles\"><div class=\"tile\"><div class=\"tile-label\">Jain's "
      "index, operations</div><div class=\"tile-value\">" +
      fmt_ratio(num(f, {"operations_jain"})) + "</div></div></div>";
  body += "<div class=\"table-grid\">" +
          table({{"Node"}, {"Operations", true}, {"Share", true}}, shares,
                {"l2-fair-nodes", "compact", "Operations per node"}) +
          table({{"Operation"},
                 {"Jain p50", true, "Jain's index over the nodes' p50 latency: 1 = alike"},
                 {"Jain p99", true, "Jain's index over the nodes' p99 latency: 1 = alike"},
                 {"Merged p99", true},
                 {"Slowest node"},
                 {"Its p99", true}},
                kinds, {"l2-fair-kinds", "compact", "Latency across nodes"}) +
          "</div>";
  return section("fairness", "Fairness",
                 "How evenly the shared L2 served the nodes: Jain's index (1 = perfectly even, "
                 "1/n = one node got everything) over each node's operations, and per operation "
                 "over each node's p50 and p99 latency.",
                 body);
}

}  // namespace fleet::report::html
