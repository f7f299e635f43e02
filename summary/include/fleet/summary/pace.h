// Whether a run kept its recorded pace: the one rule behind report.html's "Fell behind" item
// and the --baseline check (a 1x reference that fell behind missed keys for its backend's or
// its CPU's sake; docs/causal-pacing.md "Miss attribution").
#pragma once

#include "fleet/summary/run_summary.h"

namespace fleet::summary {

// Paced: on the real clock (not --clock virtual) at a speed other than 0, with records it paced.
bool was_paced(const RunSummary& summary);
// A paced run whose p99 lateness is over 1 ms, or with more than 1 % of its paced records
// issued over 1 ms late.
bool fell_behind(const RunSummary& summary);

}  // namespace fleet::summary
