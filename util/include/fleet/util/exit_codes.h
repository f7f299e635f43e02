// The exit statuses every Fleet binary (coordinator, worker, lct) returns, by meaning. README
// lists them; scripts and CI pipelines rely on them, so a value never changes meaning.
#pragma once

namespace fleet {

enum class ExitCode : int {
  kOk = 0,
  // Some record failed (LMCache's rule for `trace replay`); for `lct lint`: problems found, or
  // the file failed mid-read.
  kRecordsFailed = 1,
  // Unusable input: bad flags, an unreadable or invalid trace, a config or worker that refused
  // the run, a damaged batch stream.
  kBadInput = 2,
  // The run did not finish: a worker was lost or the run was aborted (a partial report exists).
  kRunIncomplete = 3,
  // `coordinator compare --fail-on`: a threshold was crossed (docs/compare.md).
  kThresholdCrossed = 4,
  // SIGINT/SIGTERM (128 + SIGINT); a partial report is still written.
  kInterrupted = 130,
};

constexpr int exit_status(ExitCode c) { return static_cast<int>(c); }

}  // namespace fleet
