// The embedded L2 replay: `coordinator FILE` on an L2 adapter-level trace (docs/l2-traces.md,
// "The replay") plans it, optionally prepares the target, replays it against the one
// --l2-adapter, and writes l2_replay_stats.json (and l2_prepare_manifest.json) into --output-dir
// with a short summary on stdout.
#pragma once

#include "fleet/coordinator/session/local_run.h"

namespace fleet::session {

// kOk (outcome mismatches are a metric, not a failure), kBadInput (a refused trace or flag, an
// unusable adapter, no progress within --drain-timeout) or kInterrupted (the stats are still
// written).
ExitCode run_l2_local(const ReplayOptions& options);

// report.html beside l2_replay_stats.json in --output-dir, drawn from the file as `coordinator
// report DIR` draws it (embedded and fleet L2 runs). The run's results stand without their
// picture: a failure is a warning.
void write_l2_report_page(const ReplayOptions& options);

}  // namespace fleet::session
