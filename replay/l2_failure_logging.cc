#include "fleet/replay/l2_failure_logging.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <utility>

namespace fleet::replay {

namespace {
// The log's interval is real time whatever the run's clock (a virtual one races ahead).
int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

L2FailureLogging::L2FailureLogging(engine::Engine& engine, int64_t t0_ns, std::string prefix)
    : engine_(engine), t0_ns_(t0_ns), log_(t0_ns, std::move(prefix)) {
  engine_.set_l2_failure_listener([this](const stats::L2FailureRecord& r) {
    if (auto line = log_.on_failure(r, steady_now_ns())) spdlog::warn("{}", *line);
  });
}

L2FailureLogging::~L2FailureLogging() { engine_.set_l2_failure_listener({}); }

std::vector<stats::L2FailureRecord> L2FailureLogging::finish() {
  engine_.set_l2_failure_listener({});
  std::vector<stats::L2FailureRecord> records = engine_.l2_failures();
  for (stats::L2FailureRecord& r : records) {
    if (auto line = log_.finish(r)) spdlog::warn("{}", *line);
    r.first_ns -= t0_ns_;
    r.last_ns -= t0_ns_;
  }
  return records;
}

}  // namespace fleet::replay
