#include "fleet/insight/report/contention.h"

#include <cstdio>
#include <map>

#include "fleet/stats/log_linear_histogram.h"
#include "fleet/util/json_number.h"

namespace fleet::report {

double jain_index(const std::vector<double>& xs) {
  double sum = 0, sq = 0;
  for (double x : xs) {
    sum += x;
    sq += x * x;
  }
  if (xs.empty() || sq == 0) return -1.0;
  return sum * sum / (static_cast<double>(xs.size()) * sq);
}

namespace {

// window -> node index -> total ops
std::map<int64_t, std::vector<double>> ops_per_window(const RunReport& r) {
  std::map<int64_t, std::vector<double>> out;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const auto& l2 = r.nodes[i].l2_windows;
    if (!l2.contains("windows")) continue;
    for (const auto& w : l2["windows"]) {
      auto& row = out[util::json_integer_or<int64_t>(w, "t", int64_t{0}, "t")];
      row.resize(r.nodes.size(), 0.0);
      for (auto it = w["ops"].begin(); it != w["ops"].end(); ++it) {
        row[i] += it.value().value("n", 0.0);
      }
    }
  }
  for (auto& [t, row] : out) row.resize(r.nodes.size(), 0.0);
  return out;
}

std::string f3(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

}  // namespace

nlohmann::ordered_json contention_json(const RunReport& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  std::map<std::string, stats::LogLinearHistogram> latency;
  std::map<std::string, std::pair<uint64_t, uint64_t>> totals;  // n, bytes
  nlohmann::ordered_json per_node = nlohmann::ordered_json::object();
  std::vector<double> node_ops;
  bool any = false;
  for (const auto& n : r.nodes) {
    double ops = 0;
    if (n.l2_windows.contains("totals")) {
      for (auto it = n.l2_windows["totals"].begin(); it != n.l2_windows["totals"].end(); ++it) {
        any = true;
        auto& t = totals[it.key()];
        t.first += util::json_integer_or<uint64_t>(it.value(), "n", uint64_t{0}, "n");
        t.second += util::json_integer_or<uint64_t>(it.value(), "bytes", uint64_t{0}, "bytes");
        ops += it.value().value("n", 0.0);
        latency[it.key()].merge(stats::LogLinearHistogram::from_json(it.value()["latency_ns"]));
      }
    }
    per_node[n.name] = ops;
    node_ops.push_back(ops);
  }
  if (!any) return j;
  double seconds = r.duration_s > 0 ? r.duration_s : 1.0;
  j["window_s"] = 1.0;
  nlohmann::ordered_json per_op = nlohmann::ordered_json::object();
  for (const auto& [kind, t] : totals) {
    const auto& h = latency[kind];
    per_op[kind] = {{"n", t.first},
                    {"bytes", t.second},
                    {"ops_per_s", static_cast<double>(t.first) / seconds},
                    {"p50_us", static_cast<double>(h.percentile(50)) / 1e3},
                    {"p99_us", static_cast<double>(h.percentile(99)) / 1e3}};
  }
  j["per_op"] = per_op;
  j["per_node"] = per_node;
  double overall = jain_index(node_ops);
  j["fairness"] = overall < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(overall);
  auto windows = nlohmann::ordered_json::array();
  for (const auto& [t, row] : ops_per_window(r)) {
    nlohmann::ordered_json w;
    w["t"] = t;
    double f = jain_index(row);
    w["fairness"] = f < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(f);
    nlohmann::ordered_json nodes = nlohmann::ordered_json::object();
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
      const auto& l2 = r.nodes[i].l2_windows;
      if (l2.contains("windows")) {
        for (const auto& nw : l2["windows"]) {
          if (util::json_integer_or<int64_t>(nw, "t", int64_t{0}, "t") != t) continue;
          for (auto it = nw["ops"].begin(); it != nw["ops"].end(); ++it) {
            kinds[it.key()] = {{"n", it.value()["n"]}, {"p99_us", it.value()["p99_us"]}};
          }
        }
      }
      nodes[r.nodes[i].name] = kinds;
    }
    w["nodes"] = nodes;
    windows.push_back(w);
  }
  j["windows"] = windows;
  return j;
}

std::string render_l2_windows_csv(const RunReport& r) {
  std::string out = "window_start_s,node,op,count,bytes,p50_us,p99_us,fairness\r\n";
  auto fairness = ops_per_window(r);
  for (const auto& n : r.nodes) {
    if (!n.l2_windows.contains("windows")) continue;
    for (const auto& w : n.l2_windows["windows"]) {
      int64_t t = util::json_integer_or<int64_t>(w, "t", int64_t{0}, "t");
      double f = jain_index(fairness[t]);
      for (auto it = w["ops"].begin(); it != w["ops"].end(); ++it) {
        out += std::to_string(t) + "," + n.name + "," + it.key() + "," +
               std::to_string(util::json_integer_or<uint64_t>(it.value(), "n", uint64_t{0}, "n")) +
               "," +
               std::to_string(
                   util::json_integer_or<uint64_t>(it.value(), "bytes", uint64_t{0}, "bytes")) +
               "," + f3(it.value().value("p50_us", 0.0)) + "," +
               f3(it.value().value("p99_us", 0.0)) + "," + (f < 0 ? std::string() : f3(f)) + "\r\n";
      }
    }
  }
  return out;
}

}  // namespace fleet::report
