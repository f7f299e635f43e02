#include "l2_fleet_inputs.h"

#include <algorithm>

#include "fleet/trace/l2_reader.h"

namespace fleet::session {

std::vector<std::string> l2_trace_files(const ReplayOptions& o) {
  std::vector<std::string> files = {o.trace_path};
  files.insert(files.end(), o.more_trace_paths.begin(), o.more_trace_paths.end());
  return files;
}

Result<l2replay::L2Shard> l2_fleet_shard(const FleetOptions& o) {
  const ReplayOptions& r = o.replay;
  const char* flag = o.plan_only                                     ? "--plan-only"
                     : !o.route_cache_dir.empty()                    ? "--route-cache"
                     : o.router.timeline != plan::Timeline::Preserve ? "--timeline"
                     : r.from_zero                                   ? "--from-zero"
                     : r.verbose                                     ? "--verbose"
                     : !r.jsonl_out.empty()                          ? "--jsonl-out"
                     : r.decode_ahead                                ? "--decode-ahead"
                                                                     : nullptr;
  if (flag) {
    return Status::error(std::string(flag) +
                         " is not available for an L2 trace across the fleet "
                         "(docs/l2-traces.md, \"Across the fleet\")");
  }
  if (o.router.mode == plan::ShardMode::Time)
    return Status::error("--shard time: an L2 trace is sharded by source, key or none");
  if (o.shard_source) return l2replay::L2Shard::Source;
  return o.router.mode == plan::ShardMode::Key ? l2replay::L2Shard::Key : l2replay::L2Shard::None;
}

Result<std::vector<double>> l2_file_shifts(const std::vector<std::string>& files,
                                           uint32_t max_frame_bytes) {
  std::vector<std::pair<double, double>> anchors;  // (t_mono, t_wall) of the first record
  try {
    for (const std::string& f : files) {
      trace::ReaderOptions ro;
      ro.max_frame_bytes = max_frame_bytes;
      trace::L2Reader reader(f, ro);
      trace::L2Record rec;
      if (!reader.next(rec)) return Status::error(f + ": an L2 trace without records");
      anchors.emplace_back(rec.t_mono, rec.t_wall);
    }
  } catch (const std::exception& e) {  // unreadable, not level l2, a first record that fails
    return Status::error(e.what());
  }
  double earliest = anchors.front().second;
  for (const auto& a : anchors) earliest = std::min(earliest, a.second);
  std::vector<double> shifts;
  for (const auto& [mono, wall] : anchors) shifts.push_back((wall - earliest) - mono);
  return shifts;
}

}  // namespace fleet::session
