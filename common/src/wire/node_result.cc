#include "fleet/wire/node_result.h"

#include "fleet/wire/protocol.h"

namespace fleet::wire {

namespace {

nlohmann::json stats_to_json(const stats::StatsCollector& c) {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [q, s] : c.ops()) {
    ops[q] = {{"errors", s.errors()}, {"samples", s.samples()}};
  }
  return ops;
}

stats::StatsCollector stats_from_json(const nlohmann::json& j) {
  stats::StatsCollector c;
  for (auto it = j.begin(); it != j.end(); ++it) {
    stats::OpStats& s = c.op(it.key());
    const auto& samples = it.value().at("samples");
    s.reserve(samples.size());
    for (const auto& v : samples) s.record_success(v.get<double>());
    for (uint64_t e = it.value().at("errors").get<uint64_t>(); e > 0; --e) s.record_failure();
  }
  return c;
}

}  // namespace

std::string encode_node_result(const NodeResult& r) {
  nlohmann::json j = {
      {"name", r.name},
      {"address", r.address},
      {"status", r.status},
      {"total", r.total},
      {"replayed", r.replayed},
      {"skipped", r.skipped},
      {"failed", r.failed},
      {"duration_s", r.duration_s},
      {"stats", stats_to_json(r.stats)},
      {"lateness", r.lateness.to_json()},
      {"feed_late", r.feed_late},
      {"engine_late", r.engine_late},
      {"engine_name", r.engine_name},
      {"config_digest", r.config_digest},
      {"engine_config", r.engine_config},
      {"engine_counters", r.engine_counters},
      {"l2_windows", r.l2_windows},
      {"clock_offset_ns", r.clock_offset_ns},
      {"clock_uncertainty_ns", r.clock_uncertainty_ns},
      {"start_skew_ns", r.start_skew_ns},
      {"dispatch_exits_without_enter", r.dispatch_exits_without_enter},
      {"dangling_contexts_closed", r.dangling_contexts_closed},
      {"records_received", r.records_received},
  };
  auto bytes = nlohmann::json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

NodeResult decode_node_result(std::string_view bytes) {
  try {
    nlohmann::json j = nlohmann::json::from_msgpack(bytes.begin(), bytes.end());
    NodeResult r;
    r.name = j.at("name").get<std::string>();
    r.address = j.value("address", "");
    r.status = j.at("status").get<std::string>();
    r.total = j.at("total").get<uint64_t>();
    r.replayed = j.at("replayed").get<uint64_t>();
    r.skipped = j.at("skipped").get<uint64_t>();
    r.failed = j.at("failed").get<uint64_t>();
    r.duration_s = j.at("duration_s").get<double>();
    r.stats = stats_from_json(j.at("stats"));
    r.lateness = stats::LatenessStats::from_json(j.at("lateness"));
    r.feed_late = j.value("feed_late", uint64_t{0});
    r.engine_late = j.value("engine_late", uint64_t{0});
    r.engine_name = j.value("engine_name", "");
    r.config_digest = j.value("config_digest", "");
    r.engine_config = j.value("engine_config", nlohmann::json::object());
    r.engine_counters = j.value("engine_counters", nlohmann::json::object());
    r.l2_windows = j.value("l2_windows", nlohmann::json::object());
    r.clock_offset_ns = j.value("clock_offset_ns", int64_t{0});
    r.clock_uncertainty_ns = j.value("clock_uncertainty_ns", int64_t{0});
    r.start_skew_ns = j.value("start_skew_ns", int64_t{0});
    r.dispatch_exits_without_enter = j.value("dispatch_exits_without_enter", uint64_t{0});
    r.dangling_contexts_closed = j.value("dangling_contexts_closed", uint64_t{0});
    r.records_received = j.value("records_received", uint64_t{0});
    return r;
  } catch (const std::exception& e) {
    throw ProtocolError(std::string("malformed node result: ") + e.what());
  }
}

}  // namespace fleet::wire
