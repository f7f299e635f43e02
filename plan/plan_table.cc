#include "fleet/plan/plan_table.h"

#include <cstdio>

#include "fleet/util/json_number.h"

namespace fleet::plan {

namespace {

double mean_records(const std::vector<PlanRow>& rows) {
  double mean = 0;
  for (const auto& r : rows) mean += static_cast<double>(r.records);
  return rows.empty() ? 0.0 : mean / static_cast<double>(rows.size());
}

double skew(const PlanRow& r, double mean) {
  return mean > 0 ? static_cast<double>(r.records) / mean : 0.0;
}

}  // namespace

PlanRow plan_row(const WorkerPlan& p) {
  PlanRow r;
  r.records = p.records;
  r.bytes = p.bytes;
  for (int k = 0; k < trace::kOpKindCount; ++k) r.per_kind[static_cast<size_t>(k)] = p.per_kind[k];
  r.peak_per_second = p.peak_per_second();
  r.moved = p.moved;
  r.split_parts = p.split_parts;
  return r;
}

nlohmann::ordered_json plan_row_json(const PlanRow& p) {
  nlohmann::ordered_json w;
  w["records"] = p.records;
  w["bytes"] = p.bytes;
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (int k = 0; k < trace::kOpKindCount; ++k)
    if (p.per_kind[static_cast<size_t>(k)])
      ops[std::string(trace::op_kind_name(static_cast<trace::OpKind>(k)))] =
          p.per_kind[static_cast<size_t>(k)];
  w["ops"] = ops;
  w["peak_records_per_s"] = p.peak_per_second;
  w["moved"] = p.moved;
  w["split_parts"] = p.split_parts;
  return w;
}

Result<PlanRow> plan_row_from_json(const nlohmann::json& j) {
  try {
    PlanRow r;
    r.records = util::json_integer<uint64_t>(j.at("records"), "records");
    r.bytes = util::json_integer<uint64_t>(j.at("bytes"), "bytes");
    for (const auto& [name, n] : j.at("ops").items()) {
      bool known = false;
      for (int k = 0; k < trace::kOpKindCount && !known; ++k) {
        if (trace::op_kind_name(static_cast<trace::OpKind>(k)) != name) continue;
        r.per_kind[static_cast<size_t>(k)] = util::json_integer<uint64_t>(n, name);
        known = true;
      }
      if (!known) return Status::error("plan row: unknown op kind '" + name + "'");
    }
    r.peak_per_second = util::json_integer<uint64_t>(j.at("peak_records_per_s"), "peak");
    r.moved = util::json_integer<uint64_t>(j.at("moved"), "moved");
    r.split_parts = util::json_integer<uint64_t>(j.at("split_parts"), "split_parts");
    return r;
  } catch (const std::exception& e) {  // a missing field or a value of the wrong type
    return Status::error(std::string("plan row: ") + e.what());
  }
}

nlohmann::ordered_json plan_json(const PlanTotals& t, const std::vector<std::string>& names,
                                 const std::vector<PlanRow>& rows) {
  nlohmann::ordered_json j;
  j["shard"] = shard_mode_name(t.mode);
  j["timeline"] = timeline_name(t.timeline);
  if (t.mode == ShardMode::Time) j["window_s"] = t.window_s;
  j["records"] = t.records;
  j["split_calls"] = t.split_calls;
  const double mean = mean_records(rows);
  auto workers = nlohmann::ordered_json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    nlohmann::ordered_json w;
    w["worker"] = i < names.size() ? names[i] : std::string();
    const nlohmann::ordered_json row = plan_row_json(rows[i]);
    for (auto it = row.begin(); it != row.end(); ++it) w[it.key()] = it.value();
    w["skew"] = skew(rows[i], mean);
    workers.push_back(w);
  }
  j["workers"] = workers;
  return j;
}

std::string render_plan(const PlanTotals& t, const std::vector<std::string>& names,
                        const std::vector<PlanRow>& rows) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "Plan: shard=%s timeline=%s", shard_mode_name(t.mode),
                timeline_name(t.timeline));
  out += line;
  if (t.mode == ShardMode::Time) {
    std::snprintf(line, sizeof line, " window=%gs", t.window_s);
    out += line;
  }
  std::snprintf(line, sizeof line, " records=%llu span=%.3fs split_calls=%llu\n",
                static_cast<unsigned long long>(t.records), t.t_last - t.t_first,
                static_cast<unsigned long long>(t.split_calls));
  out += line;
  std::snprintf(line, sizeof line, "%-24s %10s %12s %10s %8s %8s %6s  %s\n", "worker", "records",
                "bytes", "peak/s", "moved", "split", "skew", "ops");
  out += line;
  const double mean = mean_records(rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& p = rows[i];
    std::string ops;
    for (int k = 0; k < trace::kOpKindCount; ++k) {
      if (!p.per_kind[static_cast<size_t>(k)]) continue;
      if (!ops.empty()) ops += ' ';
      ops += std::string(trace::op_kind_name(static_cast<trace::OpKind>(k))) + "=" +
             std::to_string(p.per_kind[static_cast<size_t>(k)]);
    }
    std::snprintf(line, sizeof line, "%-24s %10llu %12llu %10llu %8llu %8llu %6.2f  %s\n",
                  i < names.size() ? names[i].c_str() : "",
                  static_cast<unsigned long long>(p.records),
                  static_cast<unsigned long long>(p.bytes),
                  static_cast<unsigned long long>(p.peak_per_second),
                  static_cast<unsigned long long>(p.moved),
                  static_cast<unsigned long long>(p.split_parts), skew(p, mean), ops.c_str());
    out += line;
  }
  return out;
}

}  // namespace fleet::plan
