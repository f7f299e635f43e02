#include "fleet/insight/report/progress.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace fleet::report {

ProgressReporter::ProgressReporter(std::function<ProgressSample()> sample, Mode mode)
    : sample_(std::move(sample)) {
  if (mode == Mode::Never) return;
  tty_ = mode == Mode::Always || isatty(STDERR_FILENO);
  thread_ = std::thread([this] { loop(tty_); });
}

ProgressReporter::~ProgressReporter() { stop(); }

void ProgressReporter::stop() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    if (stop_.exchange(true)) return;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (tty_) std::fputs("\r\033[K", stderr);
}

void ProgressReporter::loop(bool tty) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  auto last_log = start;
  uint64_t last_records = 0;
  auto last_t = start;
  double rate = 0.0;
  while (!stop_.load()) {
    {
      std::unique_lock<std::mutex> lock(wake_mu_);
      if (wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_.load(); }))
        break;
    }
    auto now = clock::now();
    ProgressSample s = sample_();
    double wall = std::chrono::duration<double>(now - start).count();
    // Fleet counts arrive with heartbeats (every 500 ms), so the rate is taken between changes
    // (or after 2 s without one) instead of flickering to 0 between two heartbeats.
    double dt = std::chrono::duration<double>(now - last_t).count();
    if (s.records != last_records || dt >= 2.0) {
      rate = dt > 0 ? static_cast<double>(s.records - last_records) / dt : 0.0;
      last_records = s.records;
      last_t = now;
    }
    char eta[32] = "?";
    if (s.fraction > 0.0 && s.fraction <= 1.0) {
      std::snprintf(eta, sizeof eta, "%.0fs", wall / s.fraction - wall);
    }
    char hit[32] = "-";
    if (s.hit_rate >= 0) std::snprintf(hit, sizeof hit, "%.1f%%", s.hit_rate * 100.0);
    char nodes[32] = "";
    if (s.nodes_alive >= 0)
      std::snprintf(nodes, sizeof nodes, " | nodes %d/%d", s.nodes_alive, s.nodes_total);
    char line[320];
    std::snprintf(line, sizeof line,
                  "%.0f%% | %llu records (%llu failed) | %.0f rec/s | ETA %s | lag %.1f us | hit %s"
                  "%s | trace %.1fs / wall %.1fs",
                  s.fraction >= 0 ? s.fraction * 100.0 : 0.0,
                  static_cast<unsigned long long>(s.records),
                  static_cast<unsigned long long>(s.failed), rate, eta,
                  static_cast<double>(s.lag_ns) / 1e3, hit, nodes, s.trace_time_s, wall);
    if (tty) {
      std::fprintf(stderr, "\r\033[K%s", line);
      std::fflush(stderr);
    } else if (std::chrono::duration<double>(now - last_log).count() >= 10.0) {
      spdlog::info("progress: {}", line);
      last_log = now;
    }
  }
}

}  // namespace fleet::report
