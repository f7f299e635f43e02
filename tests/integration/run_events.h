// Waits on what a run shows while it goes, never on time: a test that needs a run "under way"
// waits for a node's replayed records in fleet_timeseries.csv (the coordinator appends each
// window a worker reports and flushes it), a log line or a counter, with a deadline that fails
// the test saying what did not happen.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "fleet/stats/timeseries_csv.h"
#include "process_util.h"

namespace fleet::test {

// Success once `pred` holds (polled every `every`); at `timeout`, a failure saying `what` did
// not happen (the hang guard: add the children's output to its message with <<).
inline ::testing::AssertionResult eventually(
    const std::function<bool()>& pred, std::chrono::milliseconds timeout, std::string_view what,
    std::chrono::milliseconds every = std::chrono::milliseconds(5)) {
  const auto deadline = Clock::now() + timeout;
  while (!pred()) {
    if (Clock::now() > deadline) {
      return ::testing::AssertionFailure() << "not within " << timeout.count() << " ms: " << what;
    }
    std::this_thread::sleep_for(every);
  }
  return ::testing::AssertionSuccess();
}

// The windows written so far to `run_dir`/fleet_timeseries.csv (none while the file is absent
// or its header is being written).
inline std::vector<stats::TimeseriesRow> timeseries_rows(const std::string& run_dir) {
  // A row being written is cut: skipped.
  auto file = stats::read_timeseries_csv(run_dir + "/fleet_timeseries.csv");
  return file ? std::move(file->rows) : std::vector<stats::TimeseriesRow>{};
}

// Sum over the windows of `node` ("" = every node) of one RunWindow field.
inline uint64_t timeseries_sum(const std::string& run_dir, const std::string& node,
                               uint64_t stats::RunWindow::*field) {
  uint64_t sum = 0;
  for (const auto& row : timeseries_rows(run_dir))
    if (node.empty() || row.node == node) sum += row.w.*field;
  return sum;
}

// Waits until the coordinator writing `run_dir` has a window of replayed records from `node`
// ("" = any node; "local" for an embedded run): the node is mid-run and the coordinator has its
// count. Windows are 1 s of run, sent with the next heartbeat (every 500 ms): this comes about
// 1-1.5 s after T0. Fails at once if the coordinator exits first.
inline ::testing::AssertionResult wait_replaying(Process& coord, const std::string& run_dir,
                                                 const std::string& node,
                                                 std::chrono::milliseconds timeout) {
  bool exited = false;
  auto r = eventually(
      [&] {
        if (timeseries_sum(run_dir, node, &stats::RunWindow::records) > 0) return true;
        exited = !coord.running();
        return exited;
      },
      timeout,
      "a window of replayed records from " + (node.empty() ? "any node" : node) + " in " + run_dir +
          "/fleet_timeseries.csv");
  if (r && exited) {
    return ::testing::AssertionFailure()
           << "the coordinator exited (code "
           << coord.wait_exit(std::chrono::milliseconds(0)).value_or(-1) << ") before "
           << (node.empty() ? "any node" : node) << " reported a replayed record; stderr:\n"
           << coord.err();
  }
  if (!r) r << "; coordinator stderr:\n" << coord.err();
  return r;
}

// True when a worker's log (its stderr) shows every session it began as ended: the last
// "coordinator ... connected (run ...)" line is followed by a "run with ... ended: ..." line,
// whatever ended it (result sent, coordinator lost, aborted). An idle worker takes the next
// coordinator.
inline bool worker_session_ended(const std::string& log) {
  const size_t began = log.rfind(" connected (run "), ended = log.rfind("run with ");
  return began != std::string::npos && ended != std::string::npos && ended > began;
}

}  // namespace fleet::test
