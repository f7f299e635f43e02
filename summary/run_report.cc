#include "fleet/summary/run_report.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace fleet::report {

TraceInfo trace_info(const trace::FrameReader& reader) {
  TraceInfo t;
  t.path = reader.path();
  t.level = reader.header().level;
  t.schema = reader.header().trace_schema_version;
  t.header_digest = reader.header().sm_config_digest;
  t.malformed_skipped = reader.counters().malformed_skipped;
  t.truncated_tail = reader.counters().truncated_tail;
  return t;
}

namespace {
// Fleet totals of what the nodes report: a broken node's huge count saturates instead of
// wrapping the sum (the accounting then shows it unbalanced).
void add_count(uint64_t& total, uint64_t v) {
  if (__builtin_add_overflow(total, v, &total)) total = UINT64_MAX;
}
}  // namespace

void add_nodes(RunReport& report, std::vector<NodeReport> nodes) {
  const std::size_t first = report.nodes.size();
  for (auto& node : nodes) {
    add_count(report.total, node.total);
    add_count(report.replayed, node.replayed);
    add_count(report.skipped, node.skipped);
    add_count(report.failed, node.failed);
    report.duration_s = std::max(report.duration_s, node.duration_s);
    report.lateness.merge(node.lateness);
    add_count(report.feed_late, node.feed_late);
    add_count(report.engine_late, node.engine_late);
    if (node.status != wire::NodeStatus::Ok) report.stopped_early = true;
    report.nodes.push_back(std::move(node));
  }
  std::vector<const stats::StatsCollector*> parts;
  for (std::size_t i = first; i < report.nodes.size(); ++i) parts.push_back(&report.nodes[i].stats);
  report.stats.merge_all(parts);
}

void add_node(RunReport& report, NodeReport node) {
  std::vector<NodeReport> one;
  one.push_back(std::move(node));
  add_nodes(report, std::move(one));
}

std::string RunReport::replay_digest() const {
  std::set<std::string> digests;
  for (const auto& n : nodes) digests.insert(n.config_digest);
  return digests.size() == 1 ? *digests.begin() : std::string();
}

std::string RunReport::digest_comparison() const {
  std::set<std::string> digests;
  for (const auto& n : nodes) digests.insert(n.config_digest);
  if (digests.size() > 1)
    return "nodes disagree: " + std::to_string(digests.size()) + " distinct digests";
  std::string run = replay_digest();
  if (trace.header_digest.empty()) return "no recorded digest";
  if (run == trace.header_digest) return "match (" + run.substr(0, 8) + ")";
  return "MISMATCH (rec=" + trace.header_digest.substr(0, 8) + ", run=" + run.substr(0, 8) + ")";
}

std::optional<causal::PacingStats> RunReport::pacing() const {
  std::optional<causal::PacingStats> merged;
  for (const auto& n : nodes) {
    if (!n.pacing) continue;
    if (merged) {
      merged->merge(*n.pacing);
    } else {
      merged = n.pacing;
    }
  }
  return merged;
}

std::optional<stats::MissSummary> RunReport::misses() const {
  std::optional<stats::MissSummary> merged;
  for (const auto& n : nodes) {
    if (!n.misses) continue;
    if (merged)
      merged->merge(*n.misses);
    else
      merged = n.misses;
  }
  if (merged) merged->baseline = miss_pairing;
  return merged;
}

std::vector<stats::MissEvent> RunReport::miss_events() const {
  std::vector<stats::MissEvent> all;
  for (const auto& n : nodes) all.insert(all.end(), n.miss_events.begin(), n.miss_events.end());
  return all;
}

std::vector<stats::L2FailureRecord> RunReport::l2_failures() const {
  std::vector<const std::vector<stats::L2FailureRecord>*> per_node;
  for (const auto& n : nodes) per_node.push_back(&n.l2_failures);
  return stats::merge_l2_failures(per_node);
}

}  // namespace fleet::report
