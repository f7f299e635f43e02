// The embedded default: `coordinator FILE` with no --workers replays the whole trace in this
// process with the same session class a worker runs, and writes LMCache's outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fleet/causal/pacing.h"
#include "fleet/coordinator/session/miss_baseline.h"
#include "fleet/engine/engine_config.h"
#include "fleet/insight/report/outputs.h"
#include "fleet/insight/report/progress.h"
#include "fleet/util/exit_codes.h"
#include "fleet/util/status.h"

namespace fleet::session {

// The L2-trace flags (docs/l2-traces.md, "The replay"): storage traces refuse them.
struct L2Flags {
  double trace_percent = 100.0;   // --trace-percent: the first ceil(N*p/100) submissions
  bool prepare = false;           // --prepare-l2
  bool prepare_only = false;      // --prepare-only
  double drain_timeout_s = 60.0;  // --drain-timeout
  std::string stats_out;          // --l2-stats-out; "" = OUTPUT_DIR/l2_replay_stats.json
  bool given() const { return trace_percent != 100.0 || prepare || prepare_only; }
};

struct ReplayOptions {
  std::string trace_path;
  // More files after FILE: L2 traces across the fleet, one per recorded server.
  std::vector<std::string> more_trace_paths;
  storage::EngineConfig engine;
  bool config_from_trace = false;  // applied by main (header config + flag overrides)
  double speed = 1.0;
  // The real clock's spin before each record (util/clock.h): sleep to this long before it.
  int64_t spin_us = 300;
  causal::Pacing pacing = causal::Pacing::Uniform;  // resolved from --pacing and --speed
  causal::Schedule schedule = causal::Schedule::Ordered;
  double causal_horizon_s = 0.050;
  // Miss attribution (docs/causal-pacing.md): label every miss (on with --classify-misses,
  // --baseline or any speed but 1x), and pair them with the misses.csv of the run in
  // `miss_baseline` ("" = none); `miss_noise_baseline`, a second reference run, sets the
  // verdict's tolerance from how far the two are apart.
  bool classify_misses = false;
  std::string miss_baseline;
  std::string miss_noise_baseline;
  std::shared_ptr<const MissBaseline> miss_baseline_events;  // read by the CLI, before the run
  bool virtual_clock = false;
  bool from_zero = false;  // LMCache's origin: also wait out the idle time before record 1
  bool verbose = false;
  // Decode records on a second thread ahead of the dispatch (replay/decoded_stream.h). Off by
  // default: on the 2-core VMs measured it was slower (docs/benchmarks.md, "Measured and
  // not adopted").
  bool decode_ahead = false;
  std::string jsonl_out;
  uint32_t max_frame_bytes = 64u << 20;
  report::ProgressReporter::Mode progress = report::ProgressReporter::Mode::Auto;
  report::OutputOptions output;
  L2Flags l2;
};

// kOk, kRecordsFailed (some record failed: LMCache's rule), kBadInput (unusable input or
// config) or kInterrupted (a partial report is still written).
ExitCode run_local(ReplayOptions options);

// The trace's level/schema gates (LMCache's replay-safety check), for fleet runs (an L2 trace
// replays embedded only, for now: the message names --workers/--local); an error names the file.
Status check_replayable(const std::string& path, const std::string& level, int64_t schema);

}  // namespace fleet::session
