// One run directory, read for comparison: its fleet_summary.json (required) and whether the
// run is partial (stopped early, or a node that did not finish ok). Every error names the
// directory or file it is about.
#pragma once

#include <stdexcept>
#include <string>

#include "fleet/summary/run_summary.h"

namespace fleet::compare {

// A run that cannot be compared (missing directory or summary, invalid JSON, a damaged
// latency histogram): the message names the directory or file.
class RunInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunSnapshot {
  std::string dir;
  summary::RunSummary summary;  // fleet_summary.json
  bool partial = false;
  std::string partial_reason;  // e.g. "node w1 lost: no heartbeat for 1504 ms"
};

// Reads DIR/fleet_summary.json; throws RunInputError.
RunSnapshot load_run(const std::string& dir);
// The partial rule, from a summary alone: `stopped_early`, or any node whose status is not ok.
void mark_partial(RunSnapshot& run);

}  // namespace fleet::compare
