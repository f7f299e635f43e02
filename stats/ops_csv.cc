#include "fleet/stats/ops_csv.h"

#include "fleet/stats/py_format.h"

namespace fleet::stats {

void append_csv_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.append(field);
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string render_ops_csv(const StatsCollector& stats) {
  std::string out = "qualname,count,errors,mean_ms,p50_ms,p90_ms,p99_ms,min_ms,max_ms\r\n";
  for (const auto& [qualname, op] : stats.ops()) {
    const OpSummary s = op.summary();
    append_csv_field(out, qualname);
    out += ',';
    out += std::to_string(s.count);
    out += ',';
    out += std::to_string(s.errors);
    for (double v : {s.mean_ms, s.p50_ms, s.p90_ms, s.p99_ms, s.min_ms, s.max_ms}) {
      out += ',';
      out += py_fixed(v, 6);
    }
    out += "\r\n";
  }
  return out;
}

}  // namespace fleet::stats
