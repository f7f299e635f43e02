// The one writer of fleet_summary.json. Key order and number types are the file's contract
// (docs/outputs.md; bench/ab_outputs.sh compares the bytes): counts are unsigned integers,
// times and rates doubles, and every object's keys come in the order written here.
#include <utility>

#include "fleet/stats/l2_failures_json.h"
#include "fleet/summary/run_summary_json.h"
#include "fleet/util/json_pair.h"
#include "fleet/util/keyed_object.h"
#include "fleet/util/pyjson.h"

namespace fleet::summary {

namespace {

using Json = nlohmann::ordered_json;

Json records_json(const RecordCounts& r) {
  return {
      {"total", r.total}, {"replayed", r.replayed}, {"skipped", r.skipped}, {"failed", r.failed}};
}

Json lateness_json(const Lateness& l) {
  Json j;
  j["records"] = l.records;
  j["p50"] = l.p50;
  j["p99"] = l.p99;
  j["max"] = l.max;
  j["late_over_1ms"] = l.late_over_1ms;
  j["feed_late"] = l.feed_late;
  j["engine_late"] = l.engine_late;
  return j;
}

Json ops_json(const OpStatsByName& ops) {
  Json j = util::keyed_object(ops.size());
  for (const auto& [q, s] : ops) {
    j[q] = {{"count", s.count},   {"errors", s.errors}, {"mean_ms", s.mean_ms},
            {"p50_ms", s.p50_ms}, {"p90_ms", s.p90_ms}, {"p99_ms", s.p99_ms},
            {"min_ms", s.min_ms}, {"max_ms", s.max_ms}};
  }
  return j;
}

Json node_json(const NodeSummary& n) {
  Json j = util::keyed_object(16);
  j["name"] = n.name;
  j["address"] = n.address;
  j["status"] = n.status;
  j["records"] = records_json(n.records);
  j["records_received"] = n.records_received;
  j["duration_s"] = n.duration_s;
  j["lateness_us"] = lateness_json(n.lateness);
  j["ops"] = ops_json(n.ops);
  j["engine"] = {
      {"name", n.engine_name}, {"config_digest", n.config_digest}, {"counters", n.counters}};
  j["clock_offset_us"] = n.clock_offset_us;
  j["clock_uncertainty_us"] = n.clock_uncertainty_us;
  j["start_skew_us"] = n.start_skew_us;
  j["read_exits_without_enter"] = n.read_exits_without_enter;
  j["dangling_read_contexts_closed"] = n.dangling_read_contexts_closed;
  if (!n.l2_failures.empty()) j["l2_failures"] = stats::l2_failures_json(n.l2_failures);
  if (n.pacing) j["pacing"] = n.pacing->to_json();
  return j;
}

Json engine_json(const std::optional<EngineSummary>& e) {
  Json j;  // null when the run had no node
  if (!e) return j;
  j["name"] = e->name;
  j["config_digest"] = e->config_digest;
  j["config"] = e->config;
  j["counters"] = e->counters;
  return j;
}

Json trace_json(const TraceSummary& t) {
  return {{"path", t.path},
          {"level", t.level},
          {"schema", t.schema.value_or(0)},
          {"header_digest", t.header_digest},
          {"malformed_frames_dropped", t.malformed_frames_dropped},
          {"truncated_tail", t.truncated_tail}};
}

Json nullable(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json contention_json(const ContentionSummary& c) {
  Json j = Json::object();
  j["window_s"] = c.window_s;
  Json per_op = Json::object();
  for (const auto& [kind, op] : c.per_op) {
    per_op[kind] = {{"n", op.n},
                    {"bytes", op.bytes},
                    {"ops_per_s", op.ops_per_s},
                    {"p50_us", op.p50_us},
                    {"p99_us", op.p99_us}};
  }
  j["per_op"] = std::move(per_op);
  Json per_node = Json::object();
  for (const auto& [name, ops] : c.per_node) per_node[name] = ops;
  j["per_node"] = std::move(per_node);
  j["fairness"] = nullable(c.fairness);
  Json windows = Json::array();
  for (const auto& w : c.windows) {
    Json jw;
    jw["t"] = w.t;
    jw["fairness"] = nullable(w.fairness);
    Json nodes = Json::object();
    for (const auto& [name, kinds] : w.nodes) {
      Json k = Json::object();
      for (const auto& [kind, op] : kinds) k[kind] = {{"n", op.n}, {"p99_us", op.p99_us}};
      nodes[name] = std::move(k);
    }
    jw["nodes"] = std::move(nodes);
    windows.push_back(std::move(jw));
  }
  j["windows"] = std::move(windows);
  return j;
}

Json kb_json(const KeyBytes& kb) { return {{"keys", kb.keys}, {"bytes", kb.bytes}}; }

Json prefetch_json(const PrefetchSummary& p) {
  Json j;
  j["requested"] = kb_json(p.requested);
  j["l1"] = kb_json(p.l1);
  j["l2"] = kb_json(p.l2);
  Json by = Json::array();
  for (const AdapterHits& a : p.l2_by_adapter) {
    Json e = kb_json(a.served);
    e["adapter"] = a.adapter;
    e["type"] = a.type;
    by.push_back(std::move(e));
  }
  j["l2_by_adapter"] = std::move(by);
  j["missed"] = kb_json(p.missed);
  j["missed_by_reason"] = {{"not_found", kb_json(p.not_found)},
                           {"load_failed", kb_json(p.load_failed)},
                           {"trimmed", kb_json(p.trimmed)},
                           {"abandoned", kb_json(p.abandoned)}};
  j["in_flight"] = kb_json(p.in_flight);
  j["l1_hit_rate"] = p.l1_hit_rate;
  j["l2_hit_rate"] = p.l2_hit_rate;
  j["l1_l2_hit_rate"] = p.l1_l2_hit_rate;
  j["miss_rate"] = p.miss_rate;
  j["byte_l1_l2_hit_rate"] = p.byte_l1_l2_hit_rate;
  return j;
}

Json cache_json(const CacheSummary& c) {
  Json j;
  j["lookup"] = prefetch_json(c.lookup);
  j["warm"] = prefetch_json(c.warm);
  j["writes"] = {{"reserved", kb_json(c.reserved)},
                 {"refused_oom", kb_json(c.refused_oom)},
                 {"not_writable_keys", c.not_writable_keys},
                 {"stored_keys", c.stored_keys},
                 {"evicted", kb_json(c.evicted)}};
  Json nodes = Json::array();
  for (const NodeHitRates& n : c.per_node) {
    nodes.push_back({{"name", n.name},
                     {"lookup_keys", n.lookup_keys},
                     {"l1_hit_rate", n.l1_hit_rate},
                     {"l2_hit_rate", n.l2_hit_rate},
                     {"l1_l2_hit_rate", n.l1_l2_hit_rate},
                     {"miss_rate", n.miss_rate}});
  }
  j["per_node"] = std::move(nodes);
  return j;
}

Json::array_t cdf_json(const Cdf& cdf) {
  Json::array_t points;
  points.reserve(cdf.size());
  for (const auto& [x, f] : cdf) points.emplace_back(util::json_pair<Json>(x, f));
  return points;
}

}  // namespace

nlohmann::ordered_json to_json(const RunSummary& r) {
  Json j = util::keyed_object(32);
  j["records"] = records_json(r.records);
  j["duration_s"] = r.duration_s;
  j["speed"] = r.speed.value_or(1.0);
  j["clock"] = r.clock;
  j["mode"] = r.mode;
  j["stopped_early"] = r.stopped_early;
  j["lateness_us"] = lateness_json(r.lateness);
  if (r.pacing) j["pacing"] = r.pacing->to_json();
  if (r.misses) j["misses"] = r.misses->to_json();  // only runs that classified misses
  j["ops"] = ops_json(r.ops);
  j["engine"] = engine_json(r.engine);
  j["digest_comparison"] = r.digest_comparison;
  j["trace"] = trace_json(r.trace);
  Json nodes = Json::array();
  nodes.get_ref<Json::array_t&>().reserve(r.nodes.size());
  for (const auto& n : r.nodes) nodes.push_back(node_json(n));
  j["nodes"] = std::move(nodes);
  if (!r.plan.empty()) j["plan"] = r.plan;
  if (r.contention) j["contention"] = contention_json(*r.contention);
  if (!r.l2_failures.empty()) j["l2_failures"] = stats::l2_failures_json(r.l2_failures, true);
  if (r.cache) j["cache"] = cache_json(*r.cache);
  Json cdfs = util::keyed_object(r.latency_cdf_ms.size());
  for (const auto& [q, cdf] : r.latency_cdf_ms) cdfs[q] = cdf_json(cdf);
  j["latency_cdf_ms"] = std::move(cdfs);
  Json hist = util::keyed_object(r.latency_histograms_ns.size());
  for (const auto& [q, h] : r.latency_histograms_ns) {
    if (h.histogram) hist[q] = h.histogram->to_json();
  }
  j["latency_histograms_ns"] = std::move(hist);
  j["lateness_cdf_us"] = cdf_json(r.lateness_cdf_us);
  if (r.accounting.is_object()) j["accounting"] = r.accounting;
  for (auto it = r.extra.begin(); it != r.extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

std::string summary_text(const RunSummary& summary) {
  return util::py_json_dumps_indent(to_json(summary), 2) + "\n";
}

}  // namespace fleet::summary
