#include "fleet/stats/summary_json.h"

#include <nlohmann/json.hpp>

#include "fleet/util/pyjson.h"

namespace fleet::stats {

std::string render_summary_json(double duration_s, const StatsCollector& stats) {
  // nlohmann::json keeps object keys sorted by byte (= code point) order: sort_keys=True.
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [qualname, op] : stats.ops()) {
    const OpSummary s = op.summary();
    ops[qualname] = {{"count", s.count},   {"errors", s.errors}, {"mean_ms", s.mean_ms},
                     {"p50_ms", s.p50_ms}, {"p90_ms", s.p90_ms}, {"p99_ms", s.p99_ms},
                     {"min_ms", s.min_ms}, {"max_ms", s.max_ms}};
  }
  nlohmann::json doc = {{"duration_s", duration_s}, {"ops", std::move(ops)}};
  return util::py_json_dumps_indent(doc, 2) + "\n";
}

}  // namespace fleet::stats
