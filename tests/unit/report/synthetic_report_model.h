// A synthetic report model (docs/report.md) of any size, for the report.html tests: N nodes,
// the builder's series shape (top 8 nodes + "others", `points` per series), `ops` operations
// with `cdf_points`-point CDFs, contention and nested engine counters. Deterministic.
#pragma once

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace fleet::test {

struct ReportModelShape {
  int nodes = 2;
  int points = 120;
  int ops = 4;
  int cdf_points = 64;
  bool contention = true;
  // Node, op and adapter names with <, &, ", ' and a <script> tag.
  bool hostile_names = false;
  // Values at full double precision (the worst case for the embedded JSON's size) instead of
  // the 3-decimal values a builder rounding its series would give.
  bool full_precision = false;
};

inline nlohmann::json synthetic_report_model(const ReportModelShape& shape) {
  using nlohmann::json;
  auto v = [&](double x) { return shape.full_precision ? x : std::round(x * 1000) / 1000; };
  // Latencies span decades: 4 significant digits, not a fixed number of decimals.
  auto sig4 = [&](double x) {
    if (shape.full_precision || x == 0) return x;
    double scale = std::pow(10, 3 - std::floor(std::log10(std::fabs(x))));
    return std::round(x * scale) / scale;
  };
  auto node_name = [&](int i) {
    if (shape.hostile_names && i == 0) return std::string("<script>alert(1)</script>");
    if (shape.hostile_names && i == 1) return std::string("w&1 \"q\" 'x'");
    return "w" + std::to_string(i);
  };
  const int named = std::min(shape.nodes, 8);
  const bool others = shape.nodes > 8;
  const double window_s = 0.5;

  // One per-node time series list: the top nodes by name, then "others".
  auto series = [&](auto value_of) {
    json list = json::array();
    for (int n = 0; n < named + (others ? 1 : 0); ++n) {
      json points = json::array();
      for (int i = 0; i < shape.points; ++i) {
        points.push_back({i * window_s, v(value_of(n, i))});
      }
      list.push_back({{"name", n < named ? node_name(n) : "others"}, {"points", points}});
    }
    return list;
  };
  auto points = [&](auto value_of) {
    json list = json::array();
    for (int i = 0; i < shape.points; ++i) list.push_back({i * window_s, v(value_of(i))});
    return list;
  };
  auto wave = [](int i, double period) { return std::sin(i / period); };
  auto warm = [&](int i) { return 1 - std::exp(-i / (shape.points / 5.0 + 1)); };

  json m;
  m["title"] = "Fleet Replay — synthetic.lct";
  m["generated_at"] = "2026-12-02T06:30:00Z";
  m["build_id"] = "abc123def456";
  m["partial"] = false;
  m["partial_reason"] = "";
  m["verdict"] = {
      {"status", "warn"},
      {"items",
       {{{"level", "ok"}, {"title", "Faithful"}, {"text", "Every node replayed the trace."}},
        {{"level", "warn"}, {"title", "Late"}, {"text", "p99 lateness 40 µs, 3 records > 1 ms."}},
        {{"level", "ok"}, {"title", "Cache"}, {"text", "L1 + L2 served 62.0 % of lookups."}}}}};
  json digests = json::array();
  for (int n = 0; n < shape.nodes; ++n) {
    digests.push_back({{"node", node_name(n)}, {"digest", "0123abcd"}, {"matches_trace", n != 1}});
  }
  m["run"] = {
      {"trace", "/data/traces/synthetic.lct"},
      {"level", "storage"},
      {"schema", 3},
      {"header_digest", "0123abcd89ef4567"},
      {"mode", "fleet"},
      {"speed", 1.0},
      {"clock", "real"},
      {"duration_s", 62.5},
      {"records", {{"total", 1234567}, {"replayed", 1234000}, {"skipped", 500}, {"failed", 67}}},
      {"records_per_s", 19744.0},
      {"nodes", shape.nodes},
      {"digest_comparison", "match (0123abcd)"},
      {"digests", digests},
      {"plan",
       {{"sharding", "key"},
        {"shards", shape.nodes},
        {"weights", {1, 1}},
        {"router", {{"hash", "chunk"}, {"seed", 7}}}}}};

  json nodes = json::array();
  for (int n = 0; n < shape.nodes; ++n) {
    double l1 = 0.3 + 0.4 * ((n * 37) % 11) / 10.0, l2 = 0.1 + 0.01 * (n % 5);
    nodes.push_back({{"name", node_name(n)},
                     {"address", "10.0.0." + std::to_string(n + 1) + ":5555"},
                     {"status", n == 3   ? "lost"
                                : n == 5 ? "aborted"
                                         : "ok"},
                     {"records", 20000 + n},
                     {"replayed", 19990 + n},
                     {"skipped", 5},
                     {"failed", n % 3},
                     {"duration_s", 62.5},
                     {"records_per_s", 1234567.0 / (n + 1)},
                     {"lateness_p50_us", 4.5},
                     {"lateness_p99_us", 20.0 + n},
                     {"l1_hit_rate", v(l1)},
                     {"l2_hit_rate", v(l2)},
                     {"miss_rate", v(1 - l1 - l2)},
                     {"l2_ops", 1000 + 10 * n},
                     {"config_digest", n == 2 ? "ffff0000aaaa" : "0123abcd4567"}});
  }
  m["nodes"] = nodes;

  json ops = json::array();
  for (int k = 0; k < shape.ops; ++k) {
    json cdf = json::array();
    const double lo = 0.005 * (k + 1), hi = 5.0 * (k + 1);
    for (int j = 0; j < shape.cdf_points; ++j) {
      double f = (j + 1.0) / shape.cdf_points;
      double x = lo * std::pow(hi / lo, std::pow(f, 3));
      cdf.push_back({sig4(x), v(f)});
    }
    auto quantile = [&](double q) { return sig4(lo * std::pow(hi / lo, std::pow(q, 3))); };
    std::string short_name =
        shape.hostile_names && k == 0 ? "<b>op&</b>" : "op_" + std::to_string(k);
    ops.push_back(
        {{"qualname", "lmcache.v1.distributed.storage_manager.StorageManager." + short_name},
         {"short", short_name},
         {"count", 4000 * (k + 1)},
         {"errors", k % 2},
         {"mean_ms", quantile(0.6)},
         {"p50_ms", quantile(0.5)},
         {"p90_ms", quantile(0.9)},
         {"p99_ms", quantile(0.99)},
         {"min_ms", lo},
         {"max_ms", hi},
         {"cdf", cdf}});
  }
  m["ops"] = ops;

  json lateness_cdf = json::array();
  for (int j = 0; j < shape.cdf_points; ++j) {
    double f = (j + 1.0) / shape.cdf_points;
    lateness_cdf.push_back({v(std::pow(10, 5 * f)), v(0.5 + 0.5 * f)});
  }
  m["lateness"] = {{"records", 1234000}, {"p50_us", 3},        {"p99_us", 40},
                   {"max_us", 900},      {"late_over_1ms", 3}, {"feed_late", 1},
                   {"engine_late", 2},   {"cdf", lateness_cdf}};

  json lookup = {
      {"requested_keys", 100000},
      {"l1_keys", 50000},
      {"l2_keys", 12000},
      {"missed_keys", 38000},
      {"requested_bytes", 1600000000.0},
      {"l1_bytes", 800000000.0},
      {"l2_bytes", 192000000.0},
      {"missed_bytes", 608000000.0},
      {"l1_hit_rate", 0.5},
      {"l1_l2_hit_rate", 0.62},
      {"miss_rate", 0.38},
      {"missed",
       {{"not_found", 30000}, {"load_failed", 5000}, {"trimmed", 3000}, {"abandoned", 0}}},
      {"l2_by_adapter",
       {{{"adapter", shape.hostile_names ? "0:<mock>" : "0:mock"},
         {"keys", 12000},
         {"bytes", 192000000.0}}}}};
  m["cache"] = {{"lookup", lookup},
                {"warm", lookup},
                {"writes",
                 {{"stored_keys", 60000},
                  {"stored_bytes", 960000000.0},
                  {"refused_oom_keys", 12},
                  {"refused_oom_bytes", 1536},
                  {"evicted_keys", 2000},
                  {"evicted_bytes", 32000000.0}}},
                {"l2",
                 {{{"adapter", shape.hostile_names ? "0:<mock>" : "0:mock"},
                   {"stores_ok", 60000},
                   {"stores_failed", 3},
                   {"store_p99_us", 812.5},
                   {"loads_ok", 12000},
                   {"loads_failed", 1},
                   {"load_p99_us", 640.0}}}}};

  const int parts = named + (others ? 1 : 0);
  m["series"] = {{"records_per_s",
                  series([&](int n, int i) { return 2000 + 300 * wave(i + 7 * n, 20) + 1.25; })},
                 {"lateness_p99_us",
                  series([&](int n, int i) { return 20 + 8 * wave(i + n, 15) + n + 0.125; })},
                 {"lateness_max_us",
                  series([&](int n, int i) { return (i % 97 == 0 ? 900 : 80) + 10 * n + 0.5; })},
                 {"hit_rate",
                  {{"l1", points([&](int i) { return 0.2 + 0.4 * warm(i); })},
                   {"l2", points([&](int) { return 0.12; })},
                   {"miss", points([&](int i) { return 0.68 - 0.4 * warm(i); })}}},
                 {"failed", series([&](int n, int i) { return i % 50 == n ? 2.0 : 0.0; })}};

  if (shape.contention) {
    json per_node = json::array();
    for (int n = 0; n < shape.nodes; ++n) {
      per_node.push_back({{"name", node_name(n)},
                          {"ops", 1000 + 10 * n},
                          {"bytes", 16000000.0 + n},
                          {"share_ops", 1.0 / shape.nodes},
                          {"share_bytes", 1.0 / shape.nodes}});
    }
    // Each window's shares sum to 1; "others" weighs as the nodes it stands for.
    auto weight = [&](int n, int i) {
      return (n < named ? 1.0 : shape.nodes - named) * (1 + 0.3 * wave(i + 3 * n, 25));
    };
    auto share = [&](int n, int i) {
      double total = 0;
      for (int k = 0; k < parts; ++k) total += weight(k, i);
      return weight(n, i) / total;
    };
    m["contention"] = {
        {"fairness", 0.98},
        {"per_node", per_node},
        {"per_op",
         {{{"kind", "store"},
           {"n", 60000},
           {"bytes", 960000000.0},
           {"ops_per_s", 960.0},
           {"p50_us", 210.0},
           {"p99_us", 812.5}},
          {{"kind", "load"},
           {"n", 12000},
           {"bytes", 192000000.0},
           {"ops_per_s", 192.0},
           {"p50_us", 180.0},
           {"p99_us", 640.0}}}},
        {"share_ops", series(share)},
        {"share_bytes", series(share)},
        {"fairness_series", points([&](int i) { return 0.95 + 0.04 * wave(i, 30); })},
        {"l2_p99_us", points([&](int i) { return 700 + 150 * wave(i, 12) + 0.25; })}};
  }

  json counters = json::array();
  for (int n = 0; n < shape.nodes; ++n) {
    counters.push_back({{"node", node_name(n)},
                        {"counters",
                         {{"lookups", 50000 + n},
                          {"prefetch", {{"issued", 1200}, {"dropped", 3}, {"depth", {{"max", 8}}}}},
                          {"l2_adapters", {"0:mock"}},
                          {"huge", 18446744073709551615ull},
                          {"ratio", 0.25}}}});
  }
  m["engine_counters"] = counters;
  return m;
}

}  // namespace fleet::test
