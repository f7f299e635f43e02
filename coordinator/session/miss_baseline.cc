#include "fleet/coordinator/session/miss_baseline.h"

#include <filesystem>

#include "fleet/stats/miss_log.h"
#include "fleet/stats/miss_summary.h"

namespace fleet::session {

Result<std::shared_ptr<const MissBaseline>> load_miss_baseline(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / stats::kMissLogFile).string();
  if (!std::filesystem::exists(path)) {
    return Status::error("--baseline " + dir + ": no " + stats::kMissLogFile +
                         " there: run the baseline with --classify-misses");
  }
  Result<std::vector<stats::MissEvent>> events = stats::read_miss_log(path);
  if (!events) return Status::error("--baseline: " + events.status().message());
  auto b = std::make_shared<MissBaseline>();
  b->dir = dir;
  b->events = std::move(events).value();
  return std::shared_ptr<const MissBaseline>(std::move(b));
}

void pair_with_baseline(report::RunReport& report, const MissBaseline& baseline) {
  if (!report.misses()) return;
  stats::MissPairing p = stats::pair_misses(report.miss_events(), baseline.events);
  p.baseline = baseline.dir;
  report.miss_pairing = std::move(p);
}

}  // namespace fleet::session
