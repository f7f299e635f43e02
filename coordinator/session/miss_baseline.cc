#include "fleet/coordinator/session/miss_baseline.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "fleet/stats/miss_log.h"
#include "fleet/stats/miss_summary.h"
#include "fleet/summary/pace.h"
#include "fleet/summary/run_summary_json.h"

namespace fleet::session {

namespace {

Result<std::vector<stats::MissEvent>> read_events(const std::string& flag, const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / stats::kMissLogFile).string();
  if (!std::filesystem::exists(path)) {
    return Status::error(flag + " " + dir + ": no " + stats::kMissLogFile +
                         " there: run the baseline with --classify-misses");
  }
  Result<std::vector<stats::MissEvent>> events = stats::read_miss_log(path);
  if (!events) return Status::error(flag + ": " + events.status().message());
  return events;
}

}  // namespace

Result<std::shared_ptr<const MissBaseline>> load_miss_baseline(const std::string& dir,
                                                               const std::string& noise_dir) {
  Result<std::vector<stats::MissEvent>> events = read_events("--baseline", dir);
  if (!events) return events.status();
  auto b = std::make_shared<MissBaseline>();
  b->dir = dir;
  b->events = std::move(events).value();
  // Whether the baseline fell behind, and its own misses' blame, come from its summary: one
  // that is there but damaged is refused (read as absent, a truncated one said "kept pace").
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(dir) / "fleet_summary.json", ec)) {
    spdlog::warn("--baseline {}: no fleet_summary.json: whether it kept its pace is not known",
                 dir);
  } else if (Result<summary::RunSummary> s = summary::read_run_summary(dir); !s) {
    return Status::error("--baseline: " + s.status().message());
  } else {
    if (summary::was_paced(s.value())) b->lateness_p99_us = s->lateness.p99;
    b->fell_behind = summary::fell_behind(s.value());
    b->misses = s->misses;
  }
  if (!noise_dir.empty()) {
    Result<std::vector<stats::MissEvent>> second = read_events("--noise-baseline", noise_dir);
    if (!second) return second.status();
    b->noise = stats::miss_noise(b->events, std::move(second).value(), noise_dir);
  }
  return std::shared_ptr<const MissBaseline>(std::move(b));
}

void pair_with_baseline(report::RunReport& report, const MissBaseline& baseline) {
  if (!report.misses()) return;
  stats::MissPairing p = stats::pair_misses(report.miss_events(), baseline.events);
  p.baseline = baseline.dir;
  p.baseline_lateness_p99_us = baseline.lateness_p99_us;
  p.baseline_fell_behind = baseline.fell_behind;
  if (baseline.misses) {
    stats::MissSummary only = *baseline.misses;  // its flags, the misses only it had
    only.counts = p.only_baseline;
    p.only_baseline_blame = only.blame();
  }
  p.noise = baseline.noise;
  report.miss_pairing = std::move(p);
}

}  // namespace fleet::session
