// Everything needed to write `lmcache trace replay`'s outputs byte-for-byte
// (docs/trace-format.md §6.2), for callers that want one include.
#pragma once

#include "fleet/stats/metrics_report.h"
#include "fleet/stats/ops_csv.h"
#include "fleet/stats/record_lines.h"
#include "fleet/stats/replay_result.h"
#include "fleet/stats/summary_json.h"
