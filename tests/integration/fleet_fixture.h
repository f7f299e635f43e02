// Shared pieces of the fleet integration tests: deterministic traces written with the project's
// own writer (no dependency on the lct tool), a bounded coordinator run, and readers for its
// outputs (fleet_summary.json, trace_replay_ops.csv, --plan-only JSON).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op.h"
#include "fleet/trace/synthetic_trace.h"
#include "process_util.h"

// ASan and TSan builds run several times slower and map shadow memory: RSS bounds say nothing
// there, and a wait sized for a worker's cadence (PROGRESS every 500 ms) needs more slack.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
constexpr bool kSanitized = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
constexpr bool kSanitized = false;
#endif

namespace fleet::test {

// One directory for the whole test binary's cached traces.
inline const ScratchDir& suite_dir() {
  static ScratchDir dir("traces");
  return dir;
}

// A synthetic era-3 trace, written once per binary and per (name, records, tp, rate).
inline std::string synthetic_trace(const std::string& name, uint64_t records, int tp = 1,
                                   double rate = 50.0, uint64_t max_bytes = 0) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  trace::SyntheticOptions o;
  o.seed = 7;
  o.records = records;
  o.max_bytes = max_bytes;
  o.rate = rate;
  o.tp = tp;
  o.duration_s = 1e9;  // bounded by records / max_bytes
  std::string path = suite_dir() / (name + ".lct");
  trace::write_synthetic_trace(path, o);
  cache[name] = path;
  return path;
}

// Records per op kind name ("reserve_write", ...) and in total, by reading the file.
struct TraceCounts {
  uint64_t records = 0;
  std::map<std::string, uint64_t> per_kind;
  double t_first = 0, t_last = 0;
};
inline TraceCounts count_trace(const std::string& path) {
  TraceCounts c;
  trace::FrameReader reader(path);
  trace::RecordView rec;
  while (reader.next(rec)) {
    if (c.records == 0) c.t_first = rec.t_mono;
    c.t_last = rec.t_mono;
    ++c.records;
    ++c.per_kind[std::string(trace::op_kind_name(trace::op_kind_from_qualname(rec.qualname)))];
  }
  return c;
}

struct RunResult {
  int code = -1;
  std::string out, err;
  nlohmann::json summary;  // fleet_summary.json when written
  std::string dir;         // --output-dir
};

// Runs the coordinator to completion (killing its process group at `timeout`).
inline RunResult run_coordinator(std::vector<std::string> args, const std::string& out_dir,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(40)) {
  std::filesystem::create_directories(out_dir);
  std::vector<std::string> argv = {coordinator_bin()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--output-dir", out_dir});
  if (std::find(args.begin(), args.end(), "--progress") == args.end())  // unless a test asks
    argv.insert(argv.end(), {"--progress", "never"});
  Process p(argv, out_dir, "coordinator");
  RunResult r;
  r.dir = out_dir;
  auto code = p.wait_exit(timeout);
  if (!code) {
    p.kill_group(SIGKILL);
    ADD_FAILURE() << "coordinator did not finish within " << timeout.count() << " ms; stderr:\n"
                  << p.err();
  } else {
    r.code = *code;
  }
  r.out = p.out();
  r.err = p.err();
  std::string s = read_file(out_dir + "/fleet_summary.json");
  if (!s.empty()) r.summary = nlohmann::json::parse(s);
  return r;
}

// Qualname -> count + errors of a node's (or the merged) "ops" object, keyed by kind name.
inline std::map<std::string, uint64_t> ops_by_kind(const nlohmann::json& ops) {
  std::map<std::string, uint64_t> m;
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    auto kind = std::string(trace::op_kind_name(trace::op_kind_from_qualname(it.key())));
    m[kind] += it.value()["count"].get<uint64_t>() + it.value()["errors"].get<uint64_t>();
  }
  return m;
}

// The JSON object that --plan-only --format json prints after its text table.
inline nlohmann::json plan_json_from_stdout(const std::string& out) {
  size_t brace = out.find("\n{");
  if (brace == std::string::npos) return {};
  return nlohmann::json::parse(out.substr(brace + 1));
}

// Options every fast run shares: no terminal summary, short start delay.
inline std::vector<std::string> quick_args(std::vector<std::string> extra) {
  std::vector<std::string> a = {"-q", "--start-delay", "0.3"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace fleet::test
