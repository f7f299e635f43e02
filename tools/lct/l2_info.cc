// `lct info FILE` on an L2 trace (docs/lct.md, "L2 traces"): the storage info's header rows and
// records per qualname, then what the L2 trace holds: requests, source adapters, the end
// marker and its drop counts, the source's own outcomes, and whether a replay would accept it.
#include <cstdio>
#include <string>

#include "fleet/trace/errors.h"
#include "fleet/trace/l2_reader.h"
#include "fleet/trace/l2_summary.h"
#include "lct.h"

namespace fleet::lct {

namespace {

std::string row(int indent, const std::string& label, const std::string& value) {
  std::string l = label + ":";
  if (l.size() < 28) l.append(28 - l.size(), ' ');
  return std::string(static_cast<size_t>(indent), ' ') + l + value + "\n";
}

std::string seconds(double s) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", s);
  return b;
}

template <class Set, class Show>
std::string list(const Set& items, Show show) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + show(i);
  return out.empty() ? "(none)" : out;
}

std::string ratio(uint64_t a, uint64_t b) { return std::to_string(a) + " / " + std::to_string(b); }

std::string l2_block(const trace::L2Summary& s, const trace::ReaderCounters& c) {
  const trace::L2SourceOutcomes& o = s.outcomes;
  std::string out = "  l2:\n";
  out += row(4, "requests", std::to_string(s.request_ids.size()));
  out += row(4, "submissions", std::to_string(s.submissions));
  out += row(4, "source_adapters",
             list(s.source_adapters, [](int64_t a) { return std::to_string(a); }));
  out += row(4, "l2_names", list(s.l2_names, [](const std::string& n) { return n; }));
  out += row(4, "cache_salts",
             list(s.cache_salts, [](const std::string& n) { return "\"" + n + "\""; }));
  out += row(4, "end_markers", std::to_string(s.end_markers.size()));
  for (const trace::L2EndMarker& m : s.end_markers) {
    out += "      at offset " + std::to_string(m.file_offset) +
           ": recorder_dropped=" + std::to_string(m.recorder_dropped_count) +
           " event_bus_dropped=" + std::to_string(m.event_bus_dropped_count) +
           " t_mono=" + seconds(m.t_mono) + "\n";
  }
  out += row(4, "t_mono first/last",
             seconds(s.t_mono.first_record) + " / " + seconds(s.t_mono.last_record) + " (span " +
                 seconds(s.t_mono.span_seconds()) + "s)");
  out += row(4, "t_mono backward steps", std::to_string(s.t_mono.backward_steps));
  out += row(4, "lookup keys hit/asked", ratio(o.lookup_keys_hit, o.lookup_keys_total));
  out += row(4, "load keys loaded/asked", ratio(o.load_keys_succeeded, o.load_keys_total));
  out += row(4, "stores succeeded/failed",
             ratio(o.store_tasks_succeeded, o.store_tasks_failed) + " (keys " +
                 ratio(o.store_keys_succeeded, o.store_keys_failed) + ")");
  out += row(4, "store bytes transferred", std::to_string(o.store_bytes_transferred));
  out += row(4, "bytes submitted",
             "store " + std::to_string(o.store_bytes_submitted) + ", load_task " +
                 std::to_string(o.load_bytes_submitted));
  out += row(4, "ignored (unknown kinds)", list(s.ignored_by_qualname, [](const auto& kv) {
               return kv.first + ": " + std::to_string(kv.second);
             }));
  const std::vector<std::string> refusals = trace::l2_refusals(s, c);
  out += row(4, "replay", refusals.empty() ? "accepted" : "refused");
  for (const std::string& why : refusals) out += "      " + why + "\n";
  return out;
}

}  // namespace

ExitCode run_l2_info(const std::string& file, uint32_t max_frame_mb) {
  trace::ReaderOptions ro;
  ro.max_frame_bytes = max_frame_mb << 20;
  std::unique_ptr<trace::L2Reader> reader;
  trace::L2Summary s;
  try {
    reader = std::make_unique<trace::L2Reader>(file, ro);
  } catch (const trace::TraceError& e) {
    print_error("info", e.what());
    return ExitCode::kBadInput;
  }
  try {
    s = trace::summarize_l2_trace(*reader);
  } catch (const std::exception& e) {
    print_error("info", e.what());
    return ExitCode::kRecordsFailed;
  }
  const trace::Header& h = reader->header();
  std::string out = "Trace file: " + file + "\n";
  out += row(2, "level", h.level);
  out += row(2, "format_version", std::to_string(h.format_version));
  out += row(2, "trace_schema_version", std::to_string(h.trace_schema_version));
  out += row(2, "duration", seconds(s.t_mono.span_seconds()) + "s");
  out += row(2, "sm_config_digest", h.sm_config_digest.empty() ? "(none)" : h.sm_config_digest);
  out += row(2, "total_records", std::to_string(s.records));
  out += s.records_by_qualname.empty() ? "  ops: (none)\n" : "  ops:\n";
  for (const auto& [q, n] : s.records_by_qualname)
    out += "    " + q + ": " + std::to_string(n) + "\n";
  out += l2_block(s, reader->counters());
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? ExitCode::kOk : ExitCode::kRecordsFailed;
}

}  // namespace fleet::lct
