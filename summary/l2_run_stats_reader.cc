// The reader of an L2 replay's run directory, tolerant as fleet_summary.json's reader.
#include <filesystem>

#include "fleet/summary/l2_run_stats.h"
#include "fleet/util/json_file.h"
#include "tolerant_json.h"

namespace fleet::summary {

namespace {

using namespace tolerant;
namespace fs = std::filesystem;

const char* const kKinds[] = {"store", "lookup_task", "load_task", "unlock", "delete"};

const Json& object(const Json& j, const char* key) {
  static const Json kEmpty = Json::object();
  const Json& v = field(j, key);
  return v.is_object() ? v : kEmpty;
}

std::vector<std::pair<double, double>> points(const Json& a) {
  std::vector<std::pair<double, double>> out;
  for (const Json& p : a) {
    if (!p.is_array() || p.size() != 2) continue;
    const auto x = opt_number(p[0]), y = opt_number(p[1]);
    if (x && y) out.emplace_back(*x, *y);
  }
  return out;
}

template <class T>
std::vector<T> column(const Json& j, const char* key) {
  std::vector<T> out;
  for (const Json& v : array(j, key)) {
    if constexpr (std::is_same_v<T, double>) {
      out.push_back(opt_number(v).value_or(0.0));
    } else {
      out.push_back(v.is_number_integer() && v.get<int64_t>() > 0 ? v.get<T>() : T{0});
    }
  }
  return out;
}

L2KindStats kind_of(const std::string& name, const Json& j) {
  L2KindStats k;
  k.kind = name;
  k.submitted = count(j, "submitted");
  k.completed = count(j, "completed");
  k.failed = count(j, "failed");
  k.bytes_submitted = count(j, "bytes_submitted");
  k.bytes_moved = count(j, "bytes_moved");
  k.operations_per_second = number(j, "operations_per_second");
  const Json& lat = object(j, "latency_ms");
  k.latency_count = count(lat, "count");
  k.latency_mean_ms = number(lat, "mean");
  k.latency_p50_ms = number(lat, "p50");
  k.latency_p90_ms = number(lat, "p90");
  k.latency_p99_ms = number(lat, "p99");
  k.latency_min_ms = number(lat, "min");
  k.latency_max_ms = number(lat, "max");
  k.schedule_lag_max_s = number(object(j, "schedule_lag_seconds"), "max");
  k.schedule_lag_mean_s = number(object(j, "schedule_lag_seconds"), "mean");
  k.dependency_wait_max_s = number(object(j, "dependency_wait_seconds"), "max");
  k.dependency_wait_total_s = number(object(j, "dependency_wait_seconds"), "total");
  k.outcome_comparisons = count(j, "outcome_comparisons");
  k.outcome_mismatches = count(j, "outcome_mismatches");
  k.latency_cdf_ms = points(array(j, "latency_cdf_ms"));
  return k;
}

// The kinds in their fixed order, those present in by_operation.
std::vector<L2KindStats> kinds_of(const Json& by_operation) {
  std::vector<L2KindStats> out;
  for (const char* name : kKinds) {
    const Json& j = field(by_operation, name);
    if (j.is_object()) out.push_back(kind_of(name, j));
  }
  return out;
}

L2Timeline timeline_of(const Json& j) {
  L2Timeline t;
  t.window_seconds = opt_number(field(j, "window_seconds")).value_or(1.0);
  for (const Json& v : array(j, "index"))
    t.index.push_back(v.is_number_integer() ? v.get<int64_t>() : 0);
  for (const auto& [name, cols] : object(j, "by_operation").items()) {
    L2TimelineKind k;
    k.dispatched = column<uint64_t>(cols, "dispatched");
    k.completed = column<uint64_t>(cols, "completed");
    k.failed = column<uint64_t>(cols, "failed");
    k.bytes_moved = column<uint64_t>(cols, "bytes_moved");
    k.latency_p50_us = column<double>(cols, "latency_p50_us");
    k.latency_p99_us = column<double>(cols, "latency_p99_us");
    k.latency_max_us = column<double>(cols, "latency_max_us");
    k.schedule_lag_max_s = column<double>(cols, "schedule_lag_max_s");
    const size_t n = t.index.size();
    for (size_t len : {k.dispatched.size(), k.completed.size(), k.failed.size(),
                       k.bytes_moved.size(), k.latency_p50_us.size(), k.latency_p99_us.size(),
                       k.latency_max_us.size(), k.schedule_lag_max_s.size()}) {
      if (len != n && t.problem.empty())
        t.problem = "timeline of " + name + ": a column of " + std::to_string(len) +
                    " entries for " + std::to_string(n) + " windows";
    }
    t.by_operation.emplace(name, std::move(k));
  }
  if (!t.problem.empty()) t.by_operation.clear();
  return t;
}

L2PlanFacts plan_of(const Json& j) {
  L2PlanFacts p;
  for (const auto& [kind, n] : object(j, "dependency_edges").items())
    if (n.is_number_unsigned()) p.dependency_edges[kind] = n.get<uint64_t>();
  p.forward_edges = count(j, "forward_edges");
  p.overlapping_store_hits = count(j, "overlapping_store_hits");
  p.prepare_objects = count(j, "prepare_objects");
  p.prepare_bytes = count(j, "prepare_bytes");
  p.plan_sha256 = text(j, "plan_sha256");
  return p;
}

std::vector<L2NodeStats> nodes_of(const Json& nodes) {
  std::vector<L2NodeStats> out;
  for (const Json& n : nodes) {
    if (!n.is_object()) continue;
    L2NodeStats s;
    // A fleet run's node is a whole stats object named by "node" (l2replay/l2_fleet_stats.h).
    s.name = text(n, "node");
    const Json& f = object(n, "fleet");
    s.kinds = kinds_of(object(f, "by_operation"));
    s.dependency_violations = count(f, "dependency_violations");
    s.total_replay_seconds = number(n, "total_replay_seconds");
    out.push_back(std::move(s));
  }
  return out;
}

void read_top_level(const Json& j, L2RunStats& s) {
  s.speedup = number(j, "speedup");
  s.trace_percent = number(j, "trace_percent");
  s.source_operations_total = count(j, "source_operations_total");
  s.operations_selected = count(j, "operations_selected");
  s.scaled_target_submission_window_seconds = number(j, "scaled_target_submission_window_seconds");
  s.trace_submission_window_seconds = number(j, "trace_submission_window_seconds");
  s.actual_submission_window_seconds = number(j, "actual_submission_window_seconds");
  s.total_replay_seconds = number(j, "total_replay_seconds");
  s.drain_seconds = number(j, "drain_seconds");
  s.max_schedule_lag_seconds = number(j, "max_schedule_lag_seconds");
  s.mean_schedule_lag_seconds = number(j, "mean_schedule_lag_seconds");
  s.max_dependency_wait_seconds = number(j, "max_dependency_wait_seconds");
  s.total_dependency_wait_seconds = number(j, "total_dependency_wait_seconds");
  s.max_buffer_wait_seconds = number(j, "max_buffer_wait_seconds");
  s.total_buffer_wait_seconds = number(j, "total_buffer_wait_seconds");
  s.total_bytes_submitted = count(j, "total_bytes_submitted");
  s.throughput_bytes_per_second = number(j, "throughput_bytes_per_second");
  s.outcome_mismatch_count = count(j, "outcome_mismatch_count");
  s.outcome_mismatch_rate = number(j, "outcome_mismatch_rate");
  for (const Json& v : array(j, "outcome_mismatch_samples"))
    if (v.is_string()) s.outcome_mismatch_samples.push_back(v.get<std::string>());
}

void read_fleet(const Json& f, L2RunStats& s) {
  s.adapter = text(f, "adapter");
  s.trace = text(f, "trace");
  s.dependency_violations = count(f, "dependency_violations");
  s.unmatched_completions = count(f, "unmatched_completions");
  s.interrupted = flag(f, "interrupted");
  s.operations_per_second = number(f, "operations_per_second");
  s.kinds = kinds_of(object(f, "by_operation"));
  s.plan = plan_of(object(f, "plan"));
  s.timeline = timeline_of(object(f, "timeline"));
}

Result<nlohmann::json> read_object(const std::string& path) {
  Result<Json> j = util::read_json_file(path);  // an error names the file
  if (!j) return j.status();
  if (!j->is_object()) return Status::error(path + ": not a JSON object");
  return j;
}

}  // namespace

const L2KindStats* L2RunStats::kind(const std::string& name) const {
  for (const L2KindStats& k : kinds)
    if (k.kind == name) return &k;
  return nullptr;
}

uint64_t L2RunStats::operations() const {
  uint64_t n = 0;
  for (const L2KindStats& k : kinds) n += k.submitted;
  return n;
}

uint64_t L2RunStats::comparisons() const {
  uint64_t n = 0;
  for (const L2KindStats& k : kinds) n += k.outcome_comparisons;
  return n;
}

bool is_l2_run_dir(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / kL2StatsFile, ec) &&
         !fs::exists(fs::path(dir) / "fleet_summary.json", ec);
}

namespace {

Result<L2RunStats> read_stats(const std::string& dir) {
  L2RunStats s;
  s.dir = dir;
  s.file = (fs::path(dir) / kL2StatsFile).string();
  std::error_code ec;
  if (!fs::exists(s.file, ec)) {
    return Status::error(s.file + ": no such file (not an L2 replay's run directory)");
  }
  const Result<Json> j = read_object(s.file);
  if (!j) return j.status();
  read_top_level(j.value(), s);
  read_fleet(object(j.value(), "fleet"), s);
  s.nodes = nodes_of(array(j.value(), "nodes"));
  const std::string manifest = (fs::path(dir) / kL2PrepareManifestFile).string();
  if (fs::exists(manifest, ec)) {
    const Result<Json> read = read_object(manifest);
    if (!read) return read.status();
    const Json& m = read.value();
    s.prepare = L2PrepareManifest{count(m, "prepared_objects"), count(m, "prepared_bytes"),
                                  count(m, "store_tasks_succeeded"), count(m, "store_tasks_failed"),
                                  number(m, "elapsed_seconds")};
  }
  return s;
}

}  // namespace

Result<L2RunStats> read_l2_run_stats(const std::string& dir) {
  try {  // a field present with the wrong type or an impossible value (tolerant_json.h)
    return read_stats(dir);
  } catch (const std::exception& e) {
    return Status::error((fs::path(dir) / kL2StatsFile).string() +
                         " (or its prepare manifest): " + e.what());
  }
}

}  // namespace fleet::summary
