// sweep.html: the variants side by side, in the run report's style and with its inlined Chart.js
// (docs/sweep.md). Every number is in the server-rendered table; the charts (one curve per
// metric, x = the variants in grid order) are drawn by the small script below.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "fleet/insight/html/embedded_assets.h"
#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/sweep/sweep_summary.h"

namespace fleet::sweep {

namespace {

namespace html = report::html;
using json = nlohmann::json;

constexpr const char* kPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

// Draws every <canvas data-sweep=GROUP> from #sweep-model; records the outcome on <body> as the
// run report does (data-charts-drawn / data-charts-expected, errors in #report-errors).
constexpr const char* kSweepJs = R"JS(
(function () {
  const errors = document.getElementById('report-errors');
  const fail = (e) => { errors.hidden = false; errors.textContent += String(e) + '\n'; };
  window.addEventListener('error', (e) => fail(e.message));
  const model = JSON.parse(document.getElementById('sweep-model').textContent);
  const palette = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2', '#ca8a04',
                   '#db2777', '#64748b'];
  const canvases = Array.from(document.querySelectorAll('canvas[data-sweep]'));
  let drawn = 0;
  for (const canvas of canvases) {
    try {
      const group = model.groups[canvas.dataset.sweep];
      const datasets = group.metrics.map((m, i) => ({
        label: m.label, data: model.variants.map((v) => v.metrics[m.key] ?? null),
        borderColor: palette[i % palette.length], backgroundColor: palette[i % palette.length],
        tension: 0, spanGaps: true, pointRadius: 4 }));
      new Chart(canvas, { type: 'line', data: { labels: model.variants.map((v) => v.label),
        datasets }, options: { animation: false, responsive: true, maintainAspectRatio: false,
        scales: { y: { title: { display: true, text: group.unit } } },
        plugins: { legend: { position: 'bottom' } } } });
      ++drawn;
    } catch (e) { fail(e); }
  }
  const mrcCanvas = document.querySelector('canvas[data-mrc]');
  if (mrcCanvas && model.mrc) {
    try {
      const pts = (a) => a.map((p) => ({ x: p[0], y: p[1] }));
      new Chart(mrcCanvas, { type: 'scatter', data: { datasets: [
        { label: 'LRU curve (lct mrc)', data: pts(model.mrc.curve), showLine: true,
          pointRadius: 0, borderColor: '#64748b', backgroundColor: '#64748b' },
        { label: 'measured L1 hit rate', data: pts(model.mrc.measured), pointRadius: 6,
          borderColor: '#16a34a', backgroundColor: '#16a34a' }] },
        options: { animation: false, responsive: true, maintainAspectRatio: false,
          scales: { x: { type: 'logarithmic', title: { display: true, text: 'L1 size (GiB)' } },
                    y: { min: 0, max: 1, title: { display: true, text: 'L1 hit ratio' } } },
          plugins: { legend: { position: 'bottom' } } } });
      ++drawn;
    } catch (e) { fail(e); }
  }
  document.documentElement.classList.remove('no-js');
  document.body.dataset.chartsDrawn = String(drawn);
  document.body.dataset.chartsExpected = String(canvases.length + (mrcCanvas && model.mrc ? 1 : 0));
})();
)JS";

// A label as one relative URL path segment: '#', '?', '%' and the like percent-encoded.
std::string url_segment(const std::string& label) {
  std::string out;
  for (unsigned char c : label) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '=' || c == ',') {
      out += static_cast<char>(c);
    } else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      out += b;
    }
  }
  return out;
}

struct Group {
  std::string id, title, unit, how;
  std::vector<std::pair<std::string, std::string>> metrics;  // key, label
};

std::vector<Group> groups_of(const SweepSummary& s) {
  std::set<std::string> ops;
  for (const auto& v : s.variants)
    for (const auto& [k, x] : v.metrics)
      if (k.size() > 4 && k.compare(k.size() - 4, 4, ".p99") == 0 && k.rfind("l2.", 0) != 0 &&
          k.rfind("lateness.", 0) != 0)
        ops.insert(k);
  Group hit{"hit",
            "Hit rate per tier",
            "fraction of lookup keys",
            "Share of LOOKUP keys served from L1, from L1 or L2, and missed, per variant.",
            {{"cache.l1_hit_rate", "L1"},
             {"cache.l1_l2_hit_rate", "L1 + L2"},
             {"cache.miss_rate", "missed"}}};
  Group p99{
      "p99", "Per-op p99 latency", "ms", "LMCache's p99 (exact) of each op, per variant.", {}};
  for (const auto& k : ops) p99.metrics.push_back({k, k});
  Group l2{"l2",
           "L2 load",
           "ops/s",
           "L2 operations per second over the run, per variant.",
           {{"l2.ops_per_s", "L2 ops/s"}}};
  Group pace{"pace",
             "Throughput and lateness",
             "records/s · µs",
             "Records per second and p99 dispatch lateness (µs), per variant.",
             {{"records_per_s", "records/s"}, {"lateness.p99", "lateness p99 (µs)"}}};
  return {hit, p99, l2, pace};
}

// The trace's L1 curve (hit ratio over lookup accesses, `lct mrc`) against L1 size in GiB, and
// each variant's measured L1 hit rate at its l1-size-gb: where they part, the engine is not
// pure LRU (locks, trimming, batch eviction; docs/lct.md).
json mrc_model(const SweepSummary& s) {
  if (!s.mrc.is_object() || !s.mrc.contains("curve") || !s.mrc["curve"].is_array()) {
    return json();
  }
  json curve = json::array(), measured = json::array(), knees = json::array();
  for (const auto& p : s.mrc["curve"]) {
    if (!p.is_object() || !p.contains("size_bytes") || !p["size_bytes"].is_number()) continue;
    const json& hit = p.contains("lookup_hit_ratio") && p["lookup_hit_ratio"].is_number()
                          ? p["lookup_hit_ratio"]
                          : p.value("hit_ratio", json());
    if (!hit.is_number()) continue;
    curve.push_back({p["size_bytes"].get<double>() / double(1ull << 30), hit});
  }
  const json& knee_list = s.mrc.contains("knees") ? s.mrc["knees"] : json::array();
  for (const auto& k : knee_list.is_array() ? knee_list : json::array()) {
    if (k.is_object() && k.contains("size_bytes") && k["size_bytes"].is_number()) {
      knees.push_back(k["size_bytes"].get<double>() / double(1ull << 30));
    }
  }
  for (const auto& v : s.variants) {
    for (const auto& [name, value] : v.run.variant.values) {
      auto it = v.metrics.find("cache.l1_hit_rate");
      if (name != "l1-size-gb" || it == v.metrics.end()) continue;
      measured.push_back({std::strtod(value.c_str(), nullptr), it->second});
    }
  }
  return {{"curve", curve}, {"measured", measured}, {"knees", knees}};
}

}  // namespace

namespace {

// The data the page's script draws from: every variant's metrics, the chart groups, the curve.
json page_model(const SweepSummary& s, const std::vector<Group>& groups, const json& mrc) {
  json model;
  model["variants"] = json::array();
  for (const auto& v : s.variants) {
    json m = json::object();
    for (const auto& [k, x] : v.metrics) m[k] = x;
    model["variants"].push_back({{"label", v.run.variant.label}, {"metrics", m}});
  }
  if (!mrc.is_null()) model["mrc"] = mrc;
  for (const auto& g : groups) {
    json ms = json::array();
    for (const auto& [k, l] : g.metrics) ms.push_back({{"key", k}, {"label", l}});
    model["groups"][g.id] = {{"metrics", ms}, {"unit", g.unit}};
  }
  return model;
}

// Every number of the page, readable without JavaScript.
std::string variants_table(const SweepSummary& s, const std::vector<Group>& groups) {
  std::vector<html::Column> cols = {{"Variant"}, {"Exit", true}, {"Dir"}};
  for (const auto& g : groups)
    for (const auto& [k, l] : g.metrics) cols.push_back({l, true, k});
  std::vector<std::vector<html::Cell>> rows;
  for (const auto& v : s.variants) {
    std::vector<html::Cell> row = {
        html::Cell::raw(html::escape(v.run.variant.label) +
                        (v.run.variant.label == s.best ? " " + html::badge("ok", "best") : "") +
                        (v.partial || !v.has_summary ? " " + html::badge("warn", "partial") : "")),
        html::Cell::number(std::to_string(v.run.exit_code)),
        html::Cell::raw("<a href=\"" + html::escape(url_segment(v.run.variant.label)) +
                        "/report.html\">report</a>")};
    for (const auto& g : groups) {
      for (const auto& [k, l] : g.metrics) {
        auto it = v.metrics.find(k);
        char b[40] = "—";
        if (it != v.metrics.end()) std::snprintf(b, sizeof b, "%.6g", it->second);
        row.push_back(html::Cell::number(b));
      }
    }
    rows.push_back(std::move(row));
  }
  return html::table(cols, rows, html::TableOptions("variants-rows", "compact"));
}

std::string figures_html(const std::vector<Group>& groups, const json& mrc) {
  std::string figures;
  for (const auto& g : groups) {
    if (g.metrics.empty()) continue;
    figures +=
        "<figure class=\"chart\"><figcaption class=\"chart-title\">" + html::escape(g.title) +
        "</figcaption><div class=\"chart-box\" style=\"height:280px\"><canvas data-sweep=\"" +
        g.id +
        "\"></canvas></div><noscript>The numbers are in the table above.</noscript>"
        "<p class=\"how\">" +
        html::escape(g.how) + "</p></figure>";
  }
  if (mrc.is_null()) return figures;
  std::string knees;
  for (const auto& k : mrc["knees"]) {
    char b[48];
    std::snprintf(b, sizeof b, "%.3g GiB", k.get<double>());
    knees += (knees.empty() ? "" : ", ") + std::string(b);
  }
  return figures +
         "<figure class=\"chart wide\"><figcaption class=\"chart-title\">L1 miss-ratio curve vs "
         "measured</figcaption><div class=\"chart-box\" style=\"height:320px\"><canvas "
         "data-mrc=\"1\"></canvas></div><noscript>The curve is in the lct mrc file.</noscript>"
         "<p class=\"how\">Grey: the trace's exact LRU hit ratio over lookups at each L1 size "
         "(lct mrc). Green: each variant's measured L1 hit rate. Knees of the curve: " +
         html::escape(knees.empty() ? "none" : knees) + ".</p></figure>";
}

std::string intro_text(const SweepSummary& s) {
  std::string intro = std::to_string(s.variants.size()) + " variants of ";
  for (size_t i = 0; i < s.axes.size(); ++i) intro += (i ? " × " : "") + s.axes[i].name;
  intro += s.concurrent
               ? (s.same_t0 ? ", run at the same time on disjoint worker groups with one T0"
                            : ", run at the same time on disjoint worker groups")
               : ", run one after another";
  if (s.goal) {
    intro += ". Best by " + s.goal->metric + " (" + (s.goal->maximize ? "max" : "min") +
             "): " + (s.best.empty() ? "none" : s.best);
  }
  return intro + ".";
}

}  // namespace

std::string render_sweep_html(const SweepSummary& s) {
  const std::vector<Group> groups = groups_of(s);
  const json mrc = mrc_model(s);
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\" class=\"no-js\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"" +
      std::string(kPolicy) + "\"><title>Fleet Replay sweep</title><style>" +
      html::inline_safe(report::html::assets::report_css(), "style") +
      "</style></head><body><div class=\"page\"><header class=\"page-head\"><h1>Fleet Replay "
      "sweep</h1></header><main>";
  page += html::section("variants", "Variants", intro_text(s), variants_table(s, groups));
  page += html::section("curves", "Against the swept value", "x: the variants in grid order.",
                        html::chart_grid(figures_html(groups, mrc)));
  page += "</main></div><pre id=\"report-errors\" hidden></pre>";
  page += "<script type=\"application/json\" id=\"sweep-model\">" +
          html::json_for_script(page_model(s, groups, mrc)) + "</script>";
  page += "<script>" + html::inline_safe(report::html::assets::chart_js(), "script") +
          "</script><script>" + html::inline_safe(kSweepJs, "script") + "</script>";
  return page + "</body></html>\n";
}

}  // namespace fleet::sweep
