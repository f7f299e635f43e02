#include "fleet/insight/sweep/sweep_summary.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fleet/stats/replay_result.h"
#include "fleet/summary/run_summary_json.h"

namespace fleet::sweep {

namespace {

using json = nlohmann::json;

VariantResult read_variant(const VariantRun& run) {
  VariantResult r;
  r.run = run;
  Result<summary::RunSummary> read = summary::read_run_summary(run.dir);
  if (!read) {  // the variant left no usable summary: partial
    spdlog::warn("sweep: {}", read.status().message());
    return r;
  }
  const summary::RunSummary& s = read.value();
  r.has_summary = true;
  r.partial = s.stopped_early;
  for (const auto& n : s.nodes) r.partial |= n.status != "ok";
  auto& m = r.metrics;
  const double total = static_cast<double>(s.records.total);
  m["records"] = total;
  m["failed"] = static_cast<double>(s.records.failed);
  m["records_per_s"] = s.duration_s > 0 ? total / s.duration_s : 0.0;
  m["lateness.p50"] = s.lateness.p50;
  m["lateness.p99"] = s.lateness.p99;
  if (s.cache) {
    const summary::PrefetchSummary& l = s.cache->lookup;
    m["cache.l1_hit_rate"] = l.l1_hit_rate;
    m["cache.l2_hit_rate"] = l.l2_hit_rate;
    m["cache.l1_l2_hit_rate"] = l.l1_l2_hit_rate;
    m["cache.miss_rate"] = l.miss_rate;
  }
  double l2_ops = 0, l2_rate = 0;
  if (s.contention) {
    for (const auto& [kind, v] : s.contention->per_op) {
      l2_ops += static_cast<double>(v.n);
      l2_rate += v.ops_per_s;
      m["l2." + kind + ".p99"] = v.p99_us;
    }
  }
  m["l2.ops"] = l2_ops;
  m["l2.ops_per_s"] = l2_rate;
  for (const auto& [q, op] : s.ops) {
    m[stats::short_op_name(q) + ".p99"] = op.p99_ms;
    m[stats::short_op_name(q) + ".p50"] = op.p50_ms;
  }
  r.t0_mono_ns = s.coordinator.t0_mono_ns;
  return r;
}

}  // namespace

SweepSummary summarize(const std::vector<SweepAxis>& axes, const std::vector<VariantRun>& runs,
                       const std::optional<SweepGoal>& goal, bool concurrent) {
  SweepSummary s;
  s.axes = axes;
  s.goal = goal;
  s.concurrent = concurrent;
  for (const auto& run : runs) s.variants.push_back(read_variant(run));
  if (goal) {
    const VariantResult* best = nullptr;
    for (const auto& v : s.variants) {
      auto it = v.metrics.find(goal->metric);
      if (it == v.metrics.end() || v.run.exit_code > 1) continue;
      const double x = it->second;
      const double b = best ? best->metrics.at(goal->metric) : 0;
      if (!best || (goal->maximize ? x > b : x < b)) best = &v;
    }
    if (best) s.best = best->run.variant.label;
  }
  std::map<size_t, std::set<int64_t>> t0s;  // per wave
  for (const auto& v : s.variants)
    if (v.t0_mono_ns) t0s[v.run.wave].insert(v.t0_mono_ns);
  s.same_t0 = concurrent && !t0s.empty();
  for (const auto& [wave, set] : t0s) s.same_t0 = s.same_t0 && set.size() == 1;
  return s;
}

namespace {
json::object_t metrics_json(const VariantResult& v) {
  json::object_t m;
  for (const auto& [k, x] : v.metrics) m[k] = x;
  return m;
}
}  // namespace

nlohmann::ordered_json sweep_json(const SweepSummary& s) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json axes = nlohmann::ordered_json::array();
  for (const auto& a : s.axes) axes.push_back({{"name", a.name}, {"values", a.values}});
  j["axes"] = axes;
  j["concurrent"] = s.concurrent;
  j["same_t0"] = s.same_t0;
  if (s.goal) {
    j["goal"] = {{"metric", s.goal->metric},
                 {"direction", s.goal->maximize ? "max" : "min"},
                 {"best", s.best}};
  }
  nlohmann::ordered_json vs = nlohmann::ordered_json::array();
  for (const auto& v : s.variants) {
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    for (const auto& [k, x] : v.run.variant.values) values[k] = x;
    vs.push_back({{"label", v.run.variant.label},
                  {"values", values},
                  {"dir", v.run.dir},
                  {"exit_code", v.run.exit_code},
                  {"partial", v.partial || !v.has_summary},
                  {"t0_mono_ns", v.t0_mono_ns},
                  {"metrics", metrics_json(v)}});
  }
  j["variants"] = vs;
  return j;
}

namespace {

std::string cell(double v, const std::string& metric) {
  char b[48];
  if (metric.rfind("cache.", 0) == 0) {
    std::snprintf(b, sizeof b, "%.2f%%", v * 100);
  } else if (metric.find(".p99") != std::string::npos || metric.find(".p50") != std::string::npos) {
    std::snprintf(b, sizeof b, "%.3f", v);
  } else {
    std::snprintf(b, sizeof b, "%.0f", v);
  }
  return b;
}

// The columns every table and page shows: hit rates, throughput, lateness, L2, failed.
const std::vector<std::string>& headline() {
  static const std::vector<std::string> h = {"cache.l1_hit_rate", "cache.l1_l2_hit_rate",
                                             "records_per_s",     "lateness.p99",
                                             "l2.ops_per_s",      "failed"};
  return h;
}

}  // namespace

std::string render_sweep_table(const SweepSummary& s) {
  std::vector<std::string> head = {"variant", "exit"};
  for (const auto& m : headline()) head.push_back(m);
  std::vector<std::vector<std::string>> rows = {head};
  for (const auto& v : s.variants) {
    std::vector<std::string> row = {
        v.run.variant.label + (v.run.variant.label == s.best ? " *" : ""),
        std::to_string(v.run.exit_code) + (v.partial ? " partial" : "")};
    for (const auto& m : headline()) {
      auto it = v.metrics.find(m);
      row.push_back(it == v.metrics.end() ? "-" : cell(it->second, m));
    }
    rows.push_back(row);
  }
  std::vector<size_t> w(head.size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::ostringstream out;
  out << "Sweep: " << s.variants.size() << " variants"
      << (s.concurrent ? (s.same_t0 ? ", concurrent, one T0" : ", concurrent") : ", one at a time")
      << "\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < rows[r].size(); ++i) {
      const std::string& c = rows[r][i];
      out << (i ? "  " : "")
          << (i == 0 ? c + std::string(w[i] - c.size(), ' ')
                     : std::string(w[i] - c.size(), ' ') + c);
    }
    out << "\n";
  }
  if (s.goal) {
    out << "best by " << s.goal->metric << " (" << (s.goal->maximize ? "max" : "min")
        << "): " << (s.best.empty() ? "none (no variant reported it)" : s.best) << "\n";
  }
  return out.str();
}

void write_sweep_outputs(const SweepSummary& s, const std::string& dir) {
  namespace fs = std::filesystem;
  auto write = [](const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) spdlog::warn("cannot write {}", p.string());
  };
  write(fs::path(dir) / "sweep.json", sweep_json(s).dump(2) + "\n");
  write(fs::path(dir) / "sweep.html", render_sweep_html(s));
}

}  // namespace fleet::sweep
