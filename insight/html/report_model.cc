#include "fleet/insight/html/report_model.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "fleet/insight/html/model_sections.h"
#include "fleet/summary/run_summary_json.h"
#include "fleet/util/build_info.h"
#include "fleet/util/json_pair.h"
#include "fleet/util/utc_time.h"

namespace fleet::report::html {

namespace fs = std::filesystem;
using json = nlohmann::json;

Result<RunFiles> load_run_files(const std::string& dir,
                                std::optional<summary::RunSummary> summary_value) {
  RunFiles f;
  f.dir = dir;
  const fs::path summary = fs::path(dir) / "fleet_summary.json";
  const fs::path series = fs::path(dir) / "fleet_timeseries.csv";
  if (!fs::is_directory(dir)) return Status::error(dir + ": not a directory");
  if (summary_value) {
    f.summary = std::move(summary_value);
  } else if (fs::exists(summary)) {
    Result<summary::RunSummary> read = summary::read_run_summary(dir);
    if (read) {
      f.summary = std::move(read).value();
    } else {
      f.problems.push_back(read.status().message());
    }
  } else {
    f.problems.push_back("no fleet_summary.json: the run did not finish writing its results");
  }
  if (fs::exists(series)) {
    Result<stats::TimeseriesFile> read = stats::read_timeseries_csv(series.string());
    if (!read) {
      f.problems.push_back(read.status().message());
    } else {
      f.windows = std::move(read->rows);
      if (const size_t bad = read->bad_rows) {
        f.problems.push_back(series.string() + ": " + std::to_string(bad) +
                             " damaged row(s) skipped (a run cut mid-write)");
      }
    }
  }
  if (!f.summary && f.windows.empty()) {
    return Status::error(dir +
                         ": neither fleet_summary.json nor fleet_timeseries.csv: not "
                         "the output directory of a run");
  }
  return f;
}

Points downsample_min_max(const Points& in, size_t max_points) {
  if (in.size() <= max_points || max_points < 2) return in;
  const size_t buckets = max_points / 2;
  const size_t per = (in.size() + buckets - 1) / buckets;
  Points out;
  out.reserve(buckets * 2);
  for (size_t b = 0; b < in.size(); b += per) {
    const size_t e = std::min(in.size(), b + per);
    size_t lo = b, hi = b;
    for (size_t i = b; i < e; ++i) {
      if (in[i].second < in[lo].second) lo = i;
      if (in[i].second > in[hi].second) hi = i;
    }
    out.push_back(in[std::min(lo, hi)]);
    if (lo != hi) out.push_back(in[std::max(lo, hi)]);
  }
  return out;
}

namespace {

json points_json(const Points& p) {
  json::array_t a;
  const Points kept = downsample_min_max(p);
  a.reserve(kept.size());
  for (const auto& [x, y] : kept) {
    a.emplace_back(util::json_pair<json>(x, round4(y)));  // x: seconds
  }
  return a;
}

// Per node, its windows in time order.
using NodeWindows = std::map<std::string, std::vector<const stats::RunWindow*>>;

NodeWindows by_node(const std::vector<stats::TimeseriesRow>& rows) {
  NodeWindows m;
  for (const auto& r : rows) m[r.node].push_back(&r.w);
  for (auto& [n, v] : m) {
    std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->index < b->index; });
  }
  return m;
}

// The kTopNodes nodes with the most records, then everyone else as "others".
std::vector<std::string> top_nodes(const NodeWindows& nodes, std::vector<std::string>* others) {
  std::vector<std::pair<uint64_t, std::string>> ranked;
  for (const auto& [name, ws] : nodes) {
    uint64_t n = 0;
    for (auto* w : ws) n += w->records;
    ranked.push_back({n, name});
  }
  std::sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> top;
  for (size_t i = 0; i < ranked.size(); ++i) {
    (i < kTopNodes || ranked.size() == kTopNodes + 1 ? top : *others).push_back(ranked[i].second);
  }
  return top;
}

// One series per top node plus "others", y = fn(window); `combine` folds the others per index.
template <class Fn, class Combine>
json node_series(const NodeWindows& nodes, const std::vector<std::string>& top,
                 const std::vector<std::string>& others, Fn fn, Combine combine) {
  json out = json::array();
  for (const auto& name : top) {
    Points p;
    for (auto* w : nodes.at(name)) p.push_back({static_cast<double>(w->index), fn(*w)});
    out.push_back({{"name", name}, {"points", points_json(p)}});
  }
  if (!others.empty()) {
    std::map<int64_t, double> folded;
    for (const auto& name : others) {
      for (auto* w : nodes.at(name)) {
        auto [it, fresh] = folded.try_emplace(w->index, fn(*w));
        if (!fresh) it->second = combine(it->second, fn(*w));
      }
    }
    Points p;
    for (const auto& [t, v] : folded) p.push_back({static_cast<double>(t), v});
    out.push_back(
        {{"name", "others (" + std::to_string(others.size()) + ")"}, {"points", points_json(p)}});
  }
  return out;
}

// Sums over every node per window index.
struct WindowTotals {
  uint64_t lookup = 0, l1 = 0, l2 = 0, missed = 0, l2_ops = 0, l2_bytes = 0;
  int64_t l2_p99_ns = 0;
  double sum_ops = 0, sum_ops_sq = 0;
  size_t nodes = 0;
};

std::map<int64_t, WindowTotals> totals_by_window(const std::vector<stats::TimeseriesRow>& rows) {
  std::map<int64_t, WindowTotals> m;
  for (const auto& r : rows) {
    WindowTotals& t = m[r.w.index];
    t.lookup += r.w.lookup_keys;
    t.l1 += r.w.l1_hit_keys;
    t.l2 += r.w.l2_hit_keys;
    t.missed += r.w.missed_keys;
    t.l2_ops += r.w.l2_ops;
    t.l2_bytes += r.w.l2_bytes;
    t.l2_p99_ns = std::max(t.l2_p99_ns, r.w.l2_p99_ns);
    t.sum_ops += static_cast<double>(r.w.l2_ops);
    t.sum_ops_sq += static_cast<double>(r.w.l2_ops) * static_cast<double>(r.w.l2_ops);
    ++t.nodes;
  }
  return m;
}

json series_json(const RunFiles& f, const NodeWindows& nodes, const std::vector<std::string>& top,
                 const std::vector<std::string>& others) {
  auto sum = [](double a, double b) { return a + b; };
  auto max = [](double a, double b) { return std::max(a, b); };
  json s;
  s["records_per_s"] = node_series(
      nodes, top, others, [](const stats::RunWindow& w) { return double(w.records); }, sum);
  s["lateness_p99_us"] = node_series(
      nodes, top, others, [](const stats::RunWindow& w) { return w.lateness_p99_ns / 1e3; }, max);
  s["lateness_max_us"] = node_series(
      nodes, top, others, [](const stats::RunWindow& w) { return w.lateness_max_ns / 1e3; }, max);
  s["failed"] = node_series(
      nodes, top, others, [](const stats::RunWindow& w) { return double(w.failed); }, sum);
  Points l1, l2, miss;
  for (const auto& [t, w] : totals_by_window(f.windows)) {
    if (!w.lookup) continue;
    const double n = static_cast<double>(w.lookup), x = static_cast<double>(t);
    l1.push_back({x, w.l1 / n});
    l2.push_back({x, w.l2 / n});
    miss.push_back({x, w.missed / n});
  }
  s["hit_rate"] = {{"l1", points_json(l1)}, {"l2", points_json(l2)}, {"miss", points_json(miss)}};
  return s;
}

json contention_json(const RunSummary& summary, const RunFiles& f, const NodeWindows& nodes,
                     const std::vector<std::string>& top, const std::vector<std::string>& others) {
  if (!summary.contention) return json();
  const summary::ContentionSummary& c = *summary.contention;
  json out;
  out["fairness"] = c.fairness ? json(*c.fairness) : json(nullptr);
  json per_op = json::array();
  for (const auto& [kind, op] : c.per_op) {
    per_op.push_back({{"n", op.n},
                      {"bytes", op.bytes},
                      {"ops_per_s", op.ops_per_s},
                      {"p50_us", op.p50_us},
                      {"p99_us", op.p99_us},
                      {"kind", kind}});
  }
  out["per_op"] = per_op;
  const auto totals = totals_by_window(f.windows);
  uint64_t all_ops = 0, all_bytes = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> node_totals;
  for (const auto& [name, ws] : nodes) {
    auto& nt = node_totals[name];
    for (auto* w : ws) {
      nt.first += w->l2_ops;
      nt.second += w->l2_bytes;
    }
    all_ops += nt.first;
    all_bytes += nt.second;
  }
  json per_node = json::array();
  auto share = [](uint64_t a, uint64_t b) { return b ? double(a) / double(b) : 0.0; };
  for (const auto& [name, nt] : node_totals) {
    per_node.push_back({{"name", name},
                        {"ops", nt.first},
                        {"bytes", nt.second},
                        {"share_ops", share(nt.first, all_ops)},
                        {"share_bytes", share(nt.second, all_bytes)}});
  }
  out["per_node"] = per_node;
  auto sum = [](double a, double b) { return a + b; };
  out["share_ops"] = node_series(
      nodes, top, others,
      [&](const stats::RunWindow& w) {
        const auto& t = totals.at(w.index);
        return t.l2_ops ? double(w.l2_ops) / double(t.l2_ops) : 0.0;
      },
      sum);
  out["share_bytes"] = node_series(
      nodes, top, others,
      [&](const stats::RunWindow& w) {
        const auto& t = totals.at(w.index);
        return t.l2_bytes ? double(w.l2_bytes) / double(t.l2_bytes) : 0.0;
      },
      sum);
  Points fairness, p99;
  for (const auto& [t, w] : totals) {
    if (!w.l2_ops) continue;
    // Jain's index over the nodes that reported the window: (Σx)² / (n Σx²).
    fairness.push_back({double(t), w.sum_ops * w.sum_ops / (double(w.nodes) * w.sum_ops_sq)});
    p99.push_back({double(t), w.l2_p99_ns / 1e3});
  }
  out["fairness_series"] = points_json(fairness);
  out["l2_p99_us"] = points_json(p99);
  return out;
}

}  // namespace

json build_report_model(const RunFiles& f) {
  static const RunSummary kNoSummary;
  const RunSummary& summary = f.summary ? *f.summary : kNoSummary;  // read, not copied
  const NodeWindows nodes = by_node(f.windows);
  std::vector<std::string> others;
  const std::vector<std::string> top = top_nodes(nodes, &others);

  json m;
  const std::string& trace = summary.trace.path;
  m["title"] = "Fleet Replay — " + (trace.empty() ? f.dir : fs::path(trace).filename().string());
  m["generated_at"] = util::utc_iso8601_now();
  m["build_id"] = util::build_id();
  const PartialState partial = partial_state(summary, f);
  m["partial"] = partial.partial;
  m["partial_reason"] = partial.reason;
  m["verdict"] = verdict_json(summary, f);
  m["run"] = run_json(summary);
  m["nodes"] = nodes_json(summary, nodes);
  m["ops"] = ops_json(summary);
  m["lateness"] = lateness_json(summary);
  m["cache"] = cache_model_json(summary);
  if (summary.misses) m["misses"] = summary.misses->to_json();
  m["series"] = series_json(f, nodes, top, others);
  json contention = contention_json(summary, f, nodes, top, others);
  if (!contention.is_null()) m["contention"] = std::move(contention);
  json counters = json::array();
  for (const auto& n : summary.nodes)
    counters.push_back({{"node", n.name}, {"counters", n.counters}});
  m["engine_counters"] = std::move(counters);
  return m;
}

}  // namespace fleet::report::html
