#include "fleet/trace/l2_summary.h"

#include <algorithm>
#include <cstdint>

#include "fleet/trace/l2_reader.h"

namespace fleet::trace {

namespace {

// Byte totals over a whole trace: a hostile one cannot wrap them (they stop at the int64 ends).
void add_bytes(int64_t& total, int64_t v) {
  if (__builtin_add_overflow(total, v, &total)) total = v > 0 ? INT64_MAX : INT64_MIN;
}

void add_outcomes(const L2Record& r, L2SourceOutcomes& o) {
  switch (r.kind) {
    case L2Kind::StoreSubmitted:
      add_bytes(o.store_bytes_submitted, r.object_bytes());
      break;
    case L2Kind::StoreCompleted:
      (r.succeeded_count > 0 ? o.store_tasks_succeeded : o.store_tasks_failed) += 1;
      o.store_keys_succeeded += static_cast<uint64_t>(std::max<int64_t>(r.succeeded_count, 0));
      o.store_keys_failed += static_cast<uint64_t>(std::max<int64_t>(r.failed_count, 0));
      add_bytes(o.store_bytes_transferred, r.bytes_transferred);
      break;
    case L2Kind::LookupSubmitted:
      o.lookup_keys_total += r.keys.size();
      break;
    case L2Kind::LookupCompleted:
      o.lookup_keys_hit += r.indices.size();
      break;
    case L2Kind::LoadSubmitted:
      o.load_keys_total += r.keys.size();
      add_bytes(o.load_bytes_submitted, r.object_bytes());
      break;
    case L2Kind::LoadCompleted:
      o.load_keys_succeeded += r.indices.size();
      break;
    default:
      break;
  }
}

void add_time(double t, L2TimeSpan& span) {
  if (!span.any) {
    span = {true, t, t, t, t, 0};
    return;
  }
  if (t < span.last_record) ++span.backward_steps;
  span.last_record = t;
  span.min = std::min(span.min, t);
  span.max = std::max(span.max, t);
}

}  // namespace

void L2Summary::add(const L2Record& r) {
  ++records;
  ++records_by_qualname[std::string(r.qualname())];
  if (r.kind == L2Kind::Unknown) {
    ++ignored_by_qualname[r.unknown_qualname];
    add_time(r.t_mono, t_mono);
    return;
  }
  if (r.kind == L2Kind::TraceEnd) {
    end_markers.push_back(
        {r.sequence, r.file_offset, r.t_mono, r.recorder_dropped_count, r.event_bus_dropped_count});
    return;
  }
  add_time(r.t_mono, t_mono);
  if (is_l2_submission(r.kind)) ++submissions;
  if (r.request_id) request_ids.insert(*r.request_id);
  if (r.kind == L2Kind::StoreSubmitted || r.kind == L2Kind::LookupSubmitted ||
      r.kind == L2Kind::LoadSubmitted) {
    source_adapters.insert(r.adapter_index);
  }
  if (!r.l2_name.empty()) l2_names.insert(r.l2_name);
  for (const ObjectKey& k : r.keys) cache_salts.insert(k.cache_salt.str());
  add_outcomes(r, outcomes);
}

L2Summary summarize_l2_trace(L2Reader& reader) {
  L2Summary s;
  L2Record r;
  while (reader.next(r)) s.add(r);
  return s;
}

std::vector<std::string> l2_refusals(const L2Summary& s, const ReaderCounters& c) {
  std::vector<std::string> out;
  if (s.end_markers.size() > 1) out.push_back("invalid L2 trace: duplicate end marker");
  if (s.end_markers.empty()) {
    out.push_back(std::string("incomplete L2 trace: missing end marker") +
                  (c.truncated_tail ? " (the file ends in a truncated frame)" : ""));
  }
  for (const L2EndMarker& m : s.end_markers) {
    if (m.recorder_dropped_count != 0 || m.event_bus_dropped_count != 0) {
      out.push_back(
          "incomplete L2 trace: recorder_dropped=" + std::to_string(m.recorder_dropped_count) +
          ", event_bus_dropped=" + std::to_string(m.event_bus_dropped_count));
    }
  }
  if (s.source_adapters.size() > 1) {
    out.push_back("L2 replay currently supports one source adapter (this trace has " +
                  std::to_string(s.source_adapters.size()) + ")");
  }
  if (c.malformed_skipped > 0) {
    out.push_back("incomplete L2 trace: " + std::to_string(c.malformed_skipped) +
                  " malformed frame(s) skipped, which the end marker cannot vouch for");
  }
  return out;
}

}  // namespace fleet::trace
