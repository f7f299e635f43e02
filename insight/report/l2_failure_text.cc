#include "fleet/insight/report/l2_failure_text.h"

#include <cstdio>

namespace fleet::report {

namespace {

std::string since_t0(int64_t ns) {
  char b[48];
  std::snprintf(b, sizeof b, "+%.2f s", static_cast<double>(ns) / 1e9);
  return b;
}

std::string adapter_name(const stats::L2FailureRecord& r) {
  return "adapter " + std::to_string(r.adapter) + " (" + r.type + ")";
}

// "+1.23 s", and on how many nodes when the run had more than one.
std::string from_when(const stats::L2FailureRecord& r, size_t nodes) {
  std::string s = since_t0(r.first_ns);
  if (nodes > 1) s += " (" + std::to_string(r.nodes) + " of " + std::to_string(nodes) + " nodes)";
  return s;
}

}  // namespace

std::vector<stats::MetricRow> l2_failure_rows(const std::vector<stats::L2FailureRecord>& merged,
                                              size_t nodes) {
  std::vector<stats::MetricRow> rows;
  for (const auto& r : merged) {
    const std::string key = "failed_" + std::to_string(r.adapter);
    rows.push_back({key, "L2 failed, " + adapter_name(r), static_cast<int64_t>(r.failed)});
    rows.push_back({key + "_ops", "  by op", r.ops_text()});
    rows.push_back({key + "_from", "  first failure", from_when(r, nodes)});
    rows.push_back({key + "_first_error", "  first error", r.first_error});
    if (r.last_error != r.first_error)
      rows.push_back({key + "_latest_error", "  latest error", r.last_error});
  }
  return rows;
}

std::string l2_failure_sentence(const stats::L2FailureRecord& r, size_t nodes) {
  std::string s = std::to_string(r.failed) + " L2 operations failed on " + adapter_name(r) + " (" +
                  r.ops_text() + "), from " + from_when(r, nodes) +
                  " into the run; first error: " + r.first_error;
  if (r.last_error != r.first_error) s += "; latest: " + r.last_error;
  return s +
         ". No record fails for it (LMCache goes on without its L2), but the L2 did not store "
         "or serve what those operations asked.";
}

}  // namespace fleet::report
