// A self-routing worker that reads its share from a saved routing plan (docs/sharding.md,
// "Workers that read a saved plan"): the plan (plan/route_cache.h) names, for every record of
// the trace, the worker that replays it, its frame's offset and size, the stacked timeline's
// shift and a split call's key mask. The worker walks the entries, keeps its own (and those for
// every worker, --shard none), preads those frames from its copy of the trace and hands them
// to the replay exactly as batches of references would have: no scan of the trace, no decode
// of another worker's record.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fleet/plan/route_cache.h"
#include "fleet/trace/shared_trace.h"
#include "fleet/util/status.h"
#include "share_source.h"

namespace fleet::service {

class PlanShareSource final : public ShareSource {
 public:
  // The plan at `plan_path` (already allowed by this worker's policy), checked whole as the
  // coordinator checks it (its key must be `plan_key`; layout, checksum; every entry inside
  // `trace`, for one of `node_count` workers, within `max_frame_bytes`). The error names the
  // file and what does not check out.
  static Result<std::unique_ptr<PlanShareSource>> open(
      const std::string& plan_path, const std::string& plan_key,
      std::shared_ptr<const trace::SharedTrace> trace, int node_index, int node_count,
      uint32_t max_frame_bytes);
  PlanShareSource(const PlanShareSource&) = delete;
  PlanShareSource& operator=(const PlanShareSource&) = delete;

  bool next(trace::RecordView& out) override;
  void reject_malformed(const trace::RecordView& rec, const std::string& why) override;
  double progress_fraction() const override;
  // A regular file and a plan: the replay may decode ahead while it waits to dispatch.
  bool next_never_waits() const override { return !stopped_; }

  const std::string& problem() const override { return problem_; }
  // {"from_plan": true, "complete", "problem", "kept", "entries_read"}.
  nlohmann::json report() const override;

 private:
  PlanShareSource(std::unique_ptr<plan::RoutePlanReader> plan,
                  std::shared_ptr<const trace::SharedTrace> trace, int node_index);
  bool refill();  // the next run of this worker's routes, read from the trace; false: none
  void stop(std::string why);

  std::unique_ptr<plan::RoutePlanReader> plan_;
  std::optional<plan::RoutePlanReader::Cursor> cursor_;
  std::shared_ptr<const trace::SharedTrace> trace_;
  const int me_;
  // One chunk of this worker's routes: the frames' references, each one's shift and mask.
  std::vector<trace::FrameRef> refs_;
  std::vector<double> shifts_;
  std::vector<uint32_t> mask_keys_;
  std::vector<std::pair<size_t, size_t>> mask_at_;  // offset and size in masks_
  std::string masks_;
  trace::ReadFrames frames_;
  size_t pos_ = 0;
  uint64_t kept_ = 0;
  bool plan_ended_ = false;  // every entry walked
  bool stopped_ = false;     // at the end, or a problem
  std::string problem_;
};

}  // namespace fleet::service
