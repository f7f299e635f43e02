// The record accounting of a run (fleet_summary.json `accounting`, docs/outputs.md § Record
// accounting): every record of the trace counted exactly once per node, as replayed, skipped,
// failed or not delivered (with the reason), and a check that the buckets add up to the trace's
// record count. Nothing vanishes: a run cut short (a lost worker, an abort, Ctrl-C, a trace that
// shrank) still says where each record went, and a run whose buckets do not add up is a bug,
// flagged on the terminal.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet/plan/shard_router.h"
#include "fleet/summary/run_report.h"
#include "fleet/trace/frame_reader.h"

namespace fleet::report {

// What the coordinator itself knows about one node's share (parallel to RunReport::nodes).
struct NodeDelivery {
  uint64_t routed = 0;     // records the shard plan gave it (key sharding: sub-calls each)
  uint64_t sent = 0;       // records it was sent (queued for it): records_received
  uint64_t confirmed = 0;  // a lost node: the first records sent that PROGRESS confirmed finished
  bool lost = false;       // its result never arrived (the node's status is "lost")
  std::string reason;      // why it stopped early (lost or aborted); "" when it ran to the end
};

struct AccountingInput {
  plan::ShardMode shard = plan::ShardMode::None;  // embedded runs: none, one node
  uint64_t trace_records = 0;   // well-formed records in the trace file (read + counted rest)
  uint64_t records_routed = 0;  // trace records the run read and routed (each once)
  // Key sharding: sub-calls beyond the first of each split call (they are records to a node).
  uint64_t split_extra_parts = 0;
  std::string remainder_error;  // the rest of the trace could not be counted: why
  std::vector<NodeDelivery> nodes;
};

// The rest of the trace after what `reader` has returned so far: the well-formed records left
// (a frame scan, args checked as the router would). A file that fails mid-scan still has what
// was counted before it failed: the count stands beside the failure, not instead of it.
struct RemainingRecords {
  uint64_t records = 0;
  std::string error;  // why the scan stopped early; "" when it reached the end
};
RemainingRecords count_remaining_records(trace::FrameReader& reader);

// The `accounting` object. `report.nodes` are the nodes' results as merged.
nlohmann::ordered_json accounting_json(const RunReport& report, const AccountingInput& in);

// False only when the report carries an accounting object that does not balance.
bool accounting_balances(const RunReport& report);
// One line for the terminal when it does not balance ("" when it does).
std::string accounting_problem(const RunReport& report);

}  // namespace fleet::report
