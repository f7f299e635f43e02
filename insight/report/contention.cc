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

// Jain's index, or nullopt where it is undefined (every node did nothing).
std::optional<double> defined(double index) {
  return index < 0 ? std::nullopt : std::optional<double>(index);
}

// The value listed under `name`, or nullptr.
template <class V>
V* find_node(std::vector<std::pair<std::string, V>>& list, const std::string& name) {
  for (auto& [n, v] : list)
    if (n == name) return &v;
  return nullptr;
}

std::string f3(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

}  // namespace

std::optional<summary::ContentionSummary> contention_summary(const RunReport& r) {
  std::map<std::string, stats::LogLinearHistogram> latency;
  std::map<std::string, std::pair<uint64_t, uint64_t>> totals;  // n, bytes
  summary::ContentionSummary c;
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
    // A name given twice keeps its first place and its last value, as a JSON object would.
    if (auto* seen = find_node(c.per_node, n.name)) {
      *seen = ops;
    } else {
      c.per_node.emplace_back(n.name, ops);
    }
    node_ops.push_back(ops);
  }
  if (!any) return std::nullopt;
  double seconds = r.duration_s > 0 ? r.duration_s : 1.0;
  c.window_s = 1.0;
  for (const auto& [kind, t] : totals) {
    const auto& h = latency[kind];
    c.per_op[kind] = {t.first, t.second, static_cast<double>(t.first) / seconds,
                      static_cast<double>(h.percentile(50)) / 1e3,
                      static_cast<double>(h.percentile(99)) / 1e3};
  }
  c.fairness = defined(jain_index(node_ops));
  for (const auto& [t, row] : ops_per_window(r)) {
    summary::ContentionSummary::Window w;
    w.t = t;
    w.fairness = defined(jain_index(row));
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      std::map<std::string, summary::ContentionSummary::WindowOp> kinds;
      const auto& l2 = r.nodes[i].l2_windows;
      if (l2.contains("windows")) {
        for (const auto& nw : l2["windows"]) {
          if (util::json_integer_or<int64_t>(nw, "t", int64_t{0}, "t") != t) continue;
          for (auto it = nw["ops"].begin(); it != nw["ops"].end(); ++it) {
            kinds[it.key()] = {util::json_integer_or<uint64_t>(it.value(), "n", uint64_t{0}, "n"),
                               it.value().value("p99_us", 0.0)};
          }
        }
      }
      if (auto* seen = find_node(w.nodes, r.nodes[i].name)) {
        *seen = std::move(kinds);
      } else {
        w.nodes.emplace_back(r.nodes[i].name, std::move(kinds));
      }
    }
    c.windows.push_back(std::move(w));
  }
  return c;
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
