// `coordinator --workers ... FILE` and `--local N`: connects the workers, estimates their
// clock offsets, starts them at one instant T0, streams each its shard under credit-based flow
// control, watches heartbeats, and merges their results into one report.
#pragma once

#include <string>

#include "fleet/plan/shard_router.h"
#include "fleet/session/local_run.h"

namespace fleet::session {

struct FleetOptions {
  ReplayOptions replay;           // trace, speed, clock, engine config, outputs
  bool send_engine_config = false;  // engine flags / --config-from-trace given to the coordinator
  bool send_engine_name = false;    // --engine given: otherwise each worker keeps its own default
  std::string workers_spec;       // --workers
  int local = 0;                  // --local N
  int expect_workers = 0;         // 0 = as many as resolved
  int connect_timeout_ms = 10000;
  double start_delay_s = 2.0;     // T0 = last handshake + this
  std::string on_worker_loss = "abort";  // abort | continue
  int credit_window = 8;
  int max_pending_batches = 4;    // per worker, waiting for credit, before the reader blocks
  std::string compression = "auto";  // auto (none on loopback, zstd elsewhere) | zstd | none
  int compression_level = 1;         // zstd level; negative = zstd's fast modes
  // auto (workers on this host that can map the trace get references) | shared | stream
  std::string trace_access = "auto";
  std::string worker_trace_path;     // "" = the trace's absolute path
  plan::RouterOptions router;
  bool plan_only = false;
  int heartbeat_ms = 500;
  std::vector<std::string> local_worker_args;  // extra flags for --local workers
};

// Exit status: 0 ok, 1 some record failed, 2 unusable input/config/workers, 3 a worker was
// lost or the run aborted, 130 interrupted. A partial report is written in every case where
// the run had started.
int run_fleet(FleetOptions options);

}  // namespace fleet::session
