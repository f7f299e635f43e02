// What an L2 trace holds, in one pass (`lct info` on an L2 trace, docs/lct.md): records per
// qualname, requests, source adapters, the end marker(s) with their drop counts, and the
// source's own outcomes. Also the fork's completeness refusals (docs/l2-traces.md), which a
// replay applies before it plans anything.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_reader.h"
#include "fleet/trace/l2_record.h"

namespace fleet::trace {

struct L2EndMarker {
  uint64_t sequence = 0;
  uint64_t file_offset = 0;
  double t_mono = 0.0;
  int64_t recorder_dropped_count = 0;
  int64_t event_bus_dropped_count = 0;
};

// What the recorded server saw: the outcomes its completions report.
struct L2SourceOutcomes {
  uint64_t lookup_keys_hit = 0;    // Σ len(hit_indices)
  uint64_t lookup_keys_total = 0;  // Σ len(keys) of lookup submissions
  uint64_t load_keys_succeeded = 0;
  uint64_t load_keys_total = 0;
  uint64_t store_tasks_succeeded = 0;  // completions with succeeded_count > 0
  uint64_t store_tasks_failed = 0;
  uint64_t store_keys_succeeded = 0;
  uint64_t store_keys_failed = 0;
  int64_t store_bytes_transferred = 0;
  int64_t store_bytes_submitted = 0;  // Σ object_sizes of store submissions
  int64_t load_bytes_submitted = 0;
};

// t_mono of the records in file order, the end marker excluded (it is stamped at close).
struct L2TimeSpan {
  bool any = false;
  double first_record = 0.0;
  double last_record = 0.0;
  double min = 0.0;
  double max = 0.0;
  uint64_t backward_steps = 0;  // records stamped below the record before them
  double span_seconds() const { return last_record - first_record; }
};

struct L2Summary {
  uint64_t records = 0;  // including the end marker and unknown kinds
  std::map<std::string, uint64_t> records_by_qualname;
  std::map<std::string, uint64_t> ignored_by_qualname;  // unknown kinds
  uint64_t submissions = 0;                             // the five *.submitted kinds
  std::set<int64_t> request_ids;
  std::set<int64_t> source_adapters;  // of store / lookup / load submissions (not deletes)
  std::set<std::string> l2_names;
  std::set<std::string> cache_salts;
  std::vector<L2EndMarker> end_markers;
  L2SourceOutcomes outcomes;
  L2TimeSpan t_mono;

  void add(const L2Record& r);
};

// Reads the whole file into a summary. Throws TraceError as L2Reader does.
L2Summary summarize_l2_trace(L2Reader& reader);

// The fork's refusals for a trace read completely (docs/l2-traces.md, "Completeness"), each its
// message: duplicate or missing end marker, drops, more than one source adapter; and Fleet's
// own: frames the reader skipped as malformed, which the end marker cannot vouch for. Empty:
// the trace is complete.
std::vector<std::string> l2_refusals(const L2Summary& s, const ReaderCounters& c);

}  // namespace fleet::trace
