#include "fleet/l2replay/l2_fleet_stats.h"

#include <cstdio>

#include "fleet/l2replay/l2_fleet_prepare.h"
#include "fleet/l2replay/l2_stats_json.h"
#include "fleet/util/pyjson.h"

namespace fleet::l2replay {

namespace {

using Json = nlohmann::json;

// The embedded run's fields for a merged (or one node's) result: the plan's figures come from
// the shares, since no one holds the whole plan.
Json stats_of(const L2FleetRunInfo& run, const L2ShareFigures& fig, const L2ReplayResult& r) {
  L2Plan figures;  // no operations: the fields that count them are set below
  figures.trace_percent = run.trace_percent;
  figures.edge_counts = fig.kept_edges;
  figures.forward_edges = fig.forward_edges;
  figures.overlapping_store_hits = fig.overlapping_store_hits;
  Json j = l2_replay_stats(figures, r);
  uint64_t source = 0;
  for (uint64_t n : fig.source_operations) source += n;
  j["source_operations_total"] = source;
  j["operations_selected"] = fig.operations_kept;
  const double window = fig.trace_window_s;
  const double scaled = r.speed > 0 ? window / r.speed : 0.0;
  j["source_submission_window_seconds"] = scaled;
  j["scaled_target_submission_window_seconds"] = scaled;
  j["trace_submission_window_seconds"] = window;
  Json& plan = j["fleet"]["plan"];
  plan["cut_dependency_edges"] = fig.cut_edges;
  plan["files"] = fig.files;
  plan["operations_in_files"] = fig.operations_in_files;
  plan["requests"] = fig.requests_kept;
  plan["prepare_objects"] = fig.prepare_objects;  // what the node(s) seed, each object once
  plan["prepare_bytes"] = fig.prepare_bytes;
  return j;
}

std::string line(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

uint64_t total(const std::map<std::string, uint64_t>& m) {
  uint64_t n = 0;
  for (const auto& [k, v] : m) n += v;
  return n;
}

struct Merged {
  L2ReplayResult result;
  L2ShareFigures figures;
};

Merged merge(const L2FleetRunInfo& run, const std::vector<L2FleetNode>& nodes) {
  std::vector<const L2ReplayResult*> results;
  std::vector<const L2ShareFigures*> figures;
  for (const L2FleetNode& n : nodes) {
    if (!n.result) continue;
    results.push_back(&n.result->result);
    figures.push_back(&n.result->share);
  }
  Merged m{merge_l2_results(results), merge_l2_share_figures(figures)};
  m.result.speed = run.speed;
  return m;
}

}  // namespace

Json l2_fleet_stats(const L2FleetRunInfo& run, const std::vector<L2FleetNode>& nodes) {
  const Merged m = merge(run, nodes);
  Json j = stats_of(run, m.figures, m.result);
  Json& f = j["fleet"];
  f["shard"] = std::string(l2_shard_name(run.shard));
  f["trace_files"] = run.files;
  f["nodes_total"] = nodes.size();
  Json lost = Json::array(), list = Json::array();
  for (const L2FleetNode& n : nodes) {
    Json node = n.result ? stats_of(run, n.result->share, n.result->result) : Json::object();
    node["node"] = n.name;
    node["status"] = n.status;
    if (!n.why.empty()) node["reason"] = n.why;
    if (!n.result) lost.push_back(n.name);
    list.push_back(std::move(node));
  }
  f["nodes_without_result"] = lost;
  j["nodes"] = list;
  return j;
}

std::string l2_fleet_stats_text(const L2FleetRunInfo& run, const std::vector<L2FleetNode>& nodes) {
  return util::py_json_dumps_indent(l2_fleet_stats(run, nodes), 2) + "\n";
}

std::string l2_fleet_terminal_summary(const L2FleetRunInfo& run,
                                      const std::vector<L2FleetNode>& nodes) {
  const Merged m = merge(run, nodes);
  const L2ReplayResult& r = m.result;
  std::string out = line(
      "L2 fleet replay: %zu file(s) on %zu node(s), --shard %s, against %s, speed %g, %g%% "
      "(%llu operations across the nodes)\n",
      run.files.size(), nodes.size(), std::string(l2_shard_name(run.shard)).c_str(),
      r.adapter_name.c_str(), r.speed, run.trace_percent,
      static_cast<unsigned long long>(m.figures.operations_kept));
  // The embedded run's table over the merged result, without its heading line.
  const std::string table = l2_terminal_summary(L2Plan{}, r);
  out += table.substr(table.find('\n') + 1);
  if (const uint64_t cut = total(m.figures.cut_edges); cut > 0)
    out += line("  dependency edges cut by the sharding (not kept across nodes): %llu\n",
                static_cast<unsigned long long>(cut));
  for (const L2FleetNode& n : nodes) {
    if (!n.result) {
      out +=
          line("  node %s: %s, no result (%s)\n", n.name.c_str(), n.status.c_str(), n.why.c_str());
      continue;
    }
    const L2ReplayResult& nr = n.result->result;
    const stats::OpSummary st = nr.of(L2Op::Store).latency.summary();
    const stats::OpSummary lk = nr.of(L2Op::LookupTask).latency.summary();
    const stats::OpSummary ld = nr.of(L2Op::LoadTask).latency.summary();
    out += line(
        "  node %s: %s, %llu ops in %.3f s; p50/p99 ms store %.3f/%.3f lookup %.3f/%.3f load "
        "%.3f/%.3f; mismatches %llu; cut edges %llu\n",
        n.name.c_str(), n.status.c_str(), static_cast<unsigned long long>(nr.dispatched()),
        nr.total_replay_seconds, st.p50_ms, st.p99_ms, lk.p50_ms, lk.p99_ms, ld.p50_ms, ld.p99_ms,
        static_cast<unsigned long long>(nr.mismatches()),
        static_cast<unsigned long long>(total(n.result->share.cut_edges)));
  }
  return out;
}

std::optional<std::string> l2_fleet_prepare_manifest_text(const std::vector<L2FleetNode>& nodes) {
  std::vector<const L2PrepareResult*> parts;
  Json list = Json::array();
  for (const L2FleetNode& n : nodes) {
    if (!n.result || !n.result->prepare) continue;
    parts.push_back(&*n.result->prepare);
    Json node = l2_prepare_json(*n.result->prepare);
    node["node"] = n.name;
    list.push_back(std::move(node));
  }
  if (parts.empty()) return std::nullopt;
  Json j = l2_prepare_json(merge_l2_prepares(parts));
  j["nodes"] = std::move(list);
  return util::py_json_dumps_indent(j, 2) + "\n";
}

std::string l2_fleet_prepare_summary(const std::vector<L2FleetNode>& nodes) {
  std::vector<const L2PrepareResult*> parts;
  for (const L2FleetNode& n : nodes)
    if (n.result && n.result->prepare) parts.push_back(&*n.result->prepare);
  const L2PrepareResult m = merge_l2_prepares(parts);
  std::string out =
      line("L2 prepare: %llu objects, %llu bytes, %.3f s, across %zu node(s)\n",
           static_cast<unsigned long long>(m.prepared_objects),
           static_cast<unsigned long long>(m.prepared_bytes), m.elapsed_seconds, parts.size());
  for (const L2FleetNode& n : nodes) {
    if (!n.result || !n.result->prepare) continue;
    const L2PrepareResult& p = *n.result->prepare;
    out += line("  node %s: seeded %llu objects, %llu bytes (%llu store tasks failed), %.3f s\n",
                n.name.c_str(), static_cast<unsigned long long>(p.prepared_objects),
                static_cast<unsigned long long>(p.prepared_bytes),
                static_cast<unsigned long long>(p.store_tasks_failed), p.elapsed_seconds);
  }
  return out;
}

}  // namespace fleet::l2replay
