#include "fleet/summary/accounting.h"

#include <algorithm>

#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"

namespace fleet::report {

namespace {

uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

struct NodeBuckets {
  uint64_t replayed = 0, skipped = 0, failed = 0;
  uint64_t lost_with_node = 0, stopped = 0, not_sent = 0, not_read = 0;
  bool consistent = true;  // no bucket had to be clamped at 0
  uint64_t sum() const {
    return replayed + skipped + failed + lost_with_node + stopped + not_sent + not_read;
  }
};

NodeBuckets buckets(const NodeReport& n, const NodeDelivery& d, bool stopped_early,
                    uint64_t not_read) {
  NodeBuckets b;
  uint64_t finished = 0;
  if (d.lost) {
    // PROGRESS confirms the first N records sent as finished, and counts the failed ones; it
    // carries no skipped count, so a lost node's skipped records are in `replayed`.
    finished = d.confirmed;
    b.failed = std::min<uint64_t>(n.failed, finished);
    b.replayed = finished - b.failed;
    b.lost_with_node = minus(d.sent, d.confirmed);
    b.consistent = d.confirmed <= d.sent;
  } else {
    b.replayed = n.replayed;
    b.skipped = n.skipped;
    b.failed = n.failed;
    finished = n.total;
    // Sent but never dispatched: allowed only when the run stopped early (ABORT, Ctrl-C: the
    // worker drops what it holds). A node that ran to the end replayed everything it was sent.
    if (stopped_early || n.status == wire::NodeStatus::Aborted) b.stopped = minus(d.sent, finished);
    uint64_t sum = 0;  // checked: a broken node's counts must not wrap into a balance
    const bool wrapped = __builtin_add_overflow(n.replayed, n.skipped, &sum) ||
                         __builtin_add_overflow(sum, n.failed, &sum);
    b.consistent = finished <= d.sent && !wrapped && sum == n.total;
  }
  b.not_sent = minus(d.routed, d.sent);
  b.consistent = b.consistent && d.sent <= d.routed;
  b.not_read = not_read;
  return b;
}

}  // namespace

RemainingRecords count_remaining_records(trace::FrameReader& reader) {
  RemainingRecords left;
  trace::RecordView rec;
  try {
    while (reader.next(rec)) {
      try {
        trace::check_deferred_args(rec);  // a reader that defers the check: as the router would
        ++left.records;
      } catch (const trace::MalformedRecord&) {  // not a record of the trace (LMCache drops it)
      }
    }
  } catch (const std::exception& e) {  // the file fails mid-scan: what was counted stands
    left.error = e.what();
  }
  return left;
}

nlohmann::ordered_json accounting_json(const RunReport& r, const AccountingInput& in) {
  nlohmann::ordered_json j;
  const bool per_node = in.shard == plan::ShardMode::None;  // every node is given every record
  const uint64_t not_read = minus(in.trace_records, in.records_routed);
  j["trace_records"] = in.trace_records;
  j["shard"] = plan::shard_mode_name(in.shard);
  j["records_routed"] = in.records_routed;
  j["not_read"] = not_read;
  if (!per_node) j["split_extra_parts"] = in.split_extra_parts;
  if (!in.remainder_error.empty()) j["remainder_error"] = in.remainder_error;
  // What each node's buckets add up to (none), or all nodes' together (time, key).
  const uint64_t expected = per_node ? in.trace_records : in.trace_records + in.split_extra_parts;
  j["expected"] = expected;
  bool balanced = in.records_routed <= in.trace_records && in.nodes.size() == r.nodes.size();
  uint64_t total = per_node ? 0 : not_read;
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.nodes.size() && i < in.nodes.size(); ++i) {
    const NodeReport& n = r.nodes[i];
    const NodeBuckets b = buckets(n, in.nodes[i], r.stopped_early, per_node ? not_read : 0);
    nlohmann::ordered_json e;
    e["name"] = n.name;
    e["status"] = wire::node_status_name(n.status);
    e["replayed"] = b.replayed;
    e["skipped"] = b.skipped;
    e["failed"] = b.failed;
    e["not_delivered"] = {{"lost_with_node", b.lost_with_node},
                          {"stopped", b.stopped},
                          {"not_sent", b.not_sent},
                          {"not_read", b.not_read}};
    e["reason"] = in.nodes[i].reason;
    e["accounted"] = b.sum();
    balanced = balanced && b.consistent && (!per_node || b.sum() == expected);
    total += b.sum();
    nodes.push_back(std::move(e));
  }
  if (!per_node) balanced = balanced && total == expected;
  j["nodes"] = std::move(nodes);
  j["accounted"] = total;
  j["balanced"] = balanced;
  return j;
}

bool accounting_balances(const RunReport& r) {
  return !r.accounting.is_object() || r.accounting.value("balanced", true);
}

std::string accounting_problem(const RunReport& r) {
  if (accounting_balances(r)) return "";
  const auto& a = r.accounting;
  std::string s = "trace " + a["trace_records"].dump() + " records";
  if (a["shard"] == plan::shard_mode_name(plan::ShardMode::None)) {
    for (const auto& n : a["nodes"])
      s += ", " + n["name"].get<std::string>() + " " + n["accounted"].dump();
  } else {
    s += " (+" + a.value("split_extra_parts", nlohmann::ordered_json(0)).dump() +
         " split parts), accounted " + a["accounted"].dump();
  }
  return s;
}

}  // namespace fleet::report
