// A worker that routes itself (docs/sharding.md, "Workers that route themselves"): it reads
// the trace it mapped at HELLO with the coordinator's reader rules, routes every record with
// the plan room's ShardRouter and route_or_reject (the code the coordinator routes with, not a
// copy), and hands the replay the records routed to this worker exactly as batches would have
// delivered them: the stacked timeline's shift applied, a split call's part with its key mask,
// no file offset. At the end it reports what the scan found, for DONE (self_route_report).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/causal/cut_edge_counter.h"
#include "fleet/causal/pacing_stats.h"
#include "fleet/plan/shard_router.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/util/status.h"
#include "fleet/wire/protocol.h"
#include "share_source.h"

namespace fleet::service {

// START's plan parameters as router options for node `node_index` of `node_count`, or what is
// wrong with them (the worker then refuses the run, naming the parameter).
Result<plan::RouterOptions> self_routing_options(const wire::SelfRouting& s, int node_index,
                                                 int node_count);

class SelfRoutedSource final : public ShareSource {
 public:
  // Opens `path` (the trace HELLO offered and this worker verified); a trace that cannot be
  // opened is the Status.
  static Result<std::unique_ptr<SelfRoutedSource>> open(const std::string& path,
                                                        plan::RouterOptions router, int node_index,
                                                        uint32_t max_frame_bytes, bool read_ahead);
  SelfRoutedSource(const SelfRoutedSource&) = delete;
  SelfRoutedSource& operator=(const SelfRoutedSource&) = delete;

  bool next(trace::RecordView& out) override;
  void reject_malformed(const trace::RecordView& rec, const std::string& why) override;
  // Key sharding: the router's decode of the record last returned (whole, or a masked part),
  // so this worker decodes each of its records once, not once to route and again to replay.
  bool take_decoded(const trace::RecordView& rec, trace::Op& op) override;
  double progress_fraction() const override;

  // Time sharding of a run that tracks edges: count, while scanning, the edges the windows cut
  // whose child runs here (cut_edge_counter.h); cut_edges_into puts them in the node's pacing.
  void count_cut_edges(causal::EdgeFinderOptions ttl, size_t nodes);
  void cut_edges_into(causal::PacingStats& pacing) const override;

  // Why the scan stopped before the end of the trace ("" when it did not): a trace that fails
  // mid-read, or a record the replay found malformed after the router had accepted it.
  const std::string& problem() const override { return problem_; }
  // For DONE's "self_route": the reader's counts, the plan's totals and this worker's row.
  nlohmann::json report() const override;

 private:
  SelfRoutedSource(std::unique_ptr<trace::Reporter> reporter,
                   std::unique_ptr<trace::FrameReader> reader, plan::RouterOptions router,
                   int node_index);

  std::unique_ptr<trace::Reporter> reporter_;  // null: the reader logs (node 0 only)
  std::unique_ptr<trace::FrameReader> reader_;
  plan::ShardRouter router_;
  const int me_;
  // The router checked a whole record's args (none: the deferred check; time: the scan), so
  // the replay's decode need not walk them again. Key routing's decode may fail before it.
  const bool args_checked_by_router_;
  trace::RecordView rec_;
  std::unique_ptr<causal::CutEdgeCounter> cut_edges_;  // null: not counted
  bool router_decoded_ = false;  // the record last returned is the router's decoded one
  uint64_t kept_ = 0;  // records (or parts) routed to this worker and handed to the replay
  bool at_end_ = false;
  std::string problem_;
};

}  // namespace fleet::service
