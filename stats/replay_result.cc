#include "fleet/stats/replay_result.h"

#include "fleet/stats/py_format.h"

namespace fleet::stats {

std::string short_op_name(std::string_view qualname) {
  const std::size_t dot = qualname.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? qualname : qualname.substr(dot + 1);
  if (dot != std::string_view::npos && (last == "__enter__" || last == "__exit__")) {
    const std::string_view head = qualname.substr(0, dot);
    const std::size_t dot2 = head.rfind('.');
    const std::string_view method = dot2 == std::string_view::npos ? head : head.substr(dot2 + 1);
    // last.strip('_')
    const std::size_t b = last.find_first_not_of('_');
    const std::size_t e = last.find_last_not_of('_');
    return std::string(method) + "." + std::string(last.substr(b, e - b + 1));
  }
  return std::string(last);
}

std::optional<std::string> digest_row_value(const std::string& header_digest,
                                            const std::string& replay_digest) {
  if (!header_digest.empty() && !replay_digest.empty() && header_digest != replay_digest)
    return "MISMATCH (rec=" + header_digest.substr(0, 8) + ", run=" + replay_digest.substr(0, 8) +
           ")";
  if (!header_digest.empty()) return "match (" + header_digest.substr(0, 8) + ")";
  return std::nullopt;
}

std::vector<MetricSection> replay_result_sections(const ReplayOverview& o,
                                                  const StatsCollector& stats) {
  std::vector<MetricSection> sections;
  MetricSection overall{"overall", "Overall", {}};
  overall.rows.push_back(
      {"level", "Trace level", o.level ? MetricValue(*o.level) : MetricValue(std::monostate{})});
  overall.rows.push_back({"replayed", "Records replayed", static_cast<int64_t>(o.replayed)});
  overall.rows.push_back({"skipped", "Records skipped", static_cast<int64_t>(o.skipped)});
  overall.rows.push_back({"failed", "Records failed", static_cast<int64_t>(o.failed)});
  overall.rows.push_back({"duration", "Replay duration (s)", py_round(o.duration_s, 3)});
  if (auto digest = digest_row_value(o.header_digest, o.replay_digest))
    overall.rows.push_back({"digest", "Config digest", *digest});
  sections.push_back(std::move(overall));

  if (!stats.empty()) {
    MetricSection ops{"ops", "Per-Op Latency (ms)", {}};
    for (const auto& [qualname, op] : stats.ops()) {
      const OpSummary s = op.summary();
      const std::string sn = short_op_name(qualname);
      ops.rows.push_back({sn + "_count", sn + " count", static_cast<int64_t>(s.count)});
      ops.rows.push_back({sn + "_mean", sn + " mean", py_round(s.mean_ms, 3)});
      ops.rows.push_back({sn + "_p50", sn + " p50", py_round(s.p50_ms, 3)});
      ops.rows.push_back({sn + "_p99", sn + " p99", py_round(s.p99_ms, 3)});
    }
    sections.push_back(std::move(ops));
  }
  return sections;
}

namespace {
std::vector<MetricSection> with_extras(std::vector<MetricSection> sections,
                                       const std::vector<MetricSection>& extra) {
  sections.insert(sections.end(), extra.begin(), extra.end());
  return sections;
}
}  // namespace

std::string render_replay_terminal(const ReplayOverview& overview, const StatsCollector& stats,
                                   const std::vector<MetricSection>& extra_sections) {
  return render_metrics_terminal(
      kReplayResultTitle, with_extras(replay_result_sections(overview, stats), extra_sections));
}

std::string render_replay_json(const ReplayOverview& overview, const StatsCollector& stats,
                               const std::vector<MetricSection>& extra_sections) {
  return render_metrics_json(kReplayResultTitle,
                             with_extras(replay_result_sections(overview, stats), extra_sections));
}

}  // namespace fleet::stats
