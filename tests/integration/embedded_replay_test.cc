// `coordinator FILE` (the embedded default) as a drop-in for `lmcache trace replay FILE`:
// golden outputs computed by hand from docs/outputs.md's rules (virtual clock => every latency 0),
// exit codes, determinism, and the LMCache fixture era3_small.lct replayed with zero failures.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/trace/trace_writer.h"
#include "scratch_dir.h"
#include "test_paths.h"

namespace {

namespace fs = std::filesystem;
const std::string kCoordinator = ::fleet::test::bin_dir() + "/coordinator/coordinator";
const std::string kP = "lmcache.v1.distributed.storage_manager.StorageManager.";

struct RunOutput {
  int status = -1;
  std::string out;
};

RunOutput run(const std::string& args) {
  RunOutput r;
  std::string cmd = kCoordinator + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

fleet::trace::ObjectKey key(char c) {
  fleet::trace::ObjectKey k;
  k.chunk_hash = std::string(16, c);
  k.model_name = "m";
  return k;
}

fleet::trace::Op op(fleet::trace::OpKind kind, double t,
                    std::vector<fleet::trace::ObjectKey> keys) {
  fleet::trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  o.t_wall = 1.7e9 + t;
  o.keys = keys;
  o.layout.shapes = {{2, 1000}};
  o.layout.dtypes = {fleet::trace::DType::Float16};
  o.spec.keys = keys;
  o.spec.group_layouts[0] = o.layout;
  return o;
}

// 8 records: a write, a PREFIX prefetch hit, its read context and release, one record LMCache
// skips (no handler) and one __exit__ without __enter__ (counted as replayed).
std::string small_trace(const fs::path& dir, bool with_failure = false) {
  using fleet::trace::OpKind;
  std::string path = (dir / "small.lct").string();
  fleet::trace::TraceWriter w(path, fleet::trace::Header{});
  auto A = key('a'), B = key('b');
  w.write_op(op(OpKind::ReserveWrite, 1.0, {A, B}), fleet::trace::Era::Three);
  w.write_op(op(OpKind::FinishWrite, 1.1, {A, B}), fleet::trace::Era::Three);
  auto pf = op(OpKind::SubmitPrefetch, 1.2, {A, B});
  if (with_failure) pf.spec.policy = fleet::trace::TrimPolicy::SegmentedPrefix;
  w.write_op(pf, fleet::trace::Era::Three);
  w.write_op(op(OpKind::ReadEnter, 1.3, {A, B}), fleet::trace::Era::Three);
  w.write_op(op(OpKind::ReadExit, 1.4, {A, B}), fleet::trace::Era::Three);
  w.write_op(op(OpKind::FinishRead, 1.5, {A, B}), fleet::trace::Era::Three);
  auto unknown = op(OpKind::Unknown, 1.6, {A});
  unknown.unknown_qualname = kP + "reserve_write_with_status";
  w.write_op(unknown, fleet::trace::Era::Three);
  w.write_op(op(OpKind::ReadExit, 1.7, {key('c')}), fleet::trace::Era::Three);
  w.close();
  return path;
}

class EmbeddedReplay : public ::testing::Test {
 protected:
  fleet::test::ScratchDir scratch_;
  const fs::path& dir_ = scratch_.path();
  const std::string engine_ =
      " --clock virtual --l1-size-gb 0.001 --no-l1-use-lazy --eviction-policy LRU";
};

TEST_F(EmbeddedReplay, GoldenOutputsMatchLmcacheFormats) {
  std::string trace = small_trace(dir_);
  fs::path out = dir_ / "out" / "nested";  // created up front, with parents
  auto r =
      run(trace + engine_ + " --output-dir " + out.string() + " --json --verbose --jsonl-out " +
          (dir_ / "lines" / "r.jsonl").string() + " --progress never");
  ASSERT_EQ(r.status, 0) << r.out;

  // --verbose: [N/total] with the pre-scan total, skipped => FAIL 0.000ms.
  std::string verbose = "  [1/8]  OK       0.000ms  " + kP +
                        "reserve_write\n"
                        "  [2/8]  OK       0.000ms  " +
                        kP +
                        "finish_write\n"
                        "  [3/8]  OK       0.000ms  " +
                        kP +
                        "submit_prefetch_task\n"
                        "  [4/8]  OK       0.000ms  " +
                        kP +
                        "read_prefetched_results.__enter__\n"
                        "  [5/8]  OK       0.000ms  " +
                        kP +
                        "read_prefetched_results.__exit__\n"
                        "  [6/8]  OK       0.000ms  " +
                        kP +
                        "finish_read_prefetched\n"
                        "  [7/8]  FAIL     0.000ms  " +
                        kP +
                        "reserve_write_with_status\n"
                        "  [8/8]  OK       0.000ms  " +
                        kP + "read_prefetched_results.__exit__\n";
  ASSERT_GE(r.out.size(), verbose.size());
  EXPECT_EQ(r.out.substr(0, verbose.size()), verbose);

  // The terminal block: duration 0.7 s of virtual time (1.7 - 1.0), rendered %.2f.
  std::string block =
      "===================== Trace Replay Result ======================\n"
      "--------------------------- Overall ----------------------------\n"
      "Trace level:                                             storage\n"
      "Records replayed:                                              7\n"
      "Records skipped:                                               1\n"
      "Records failed:                                                0\n"
      "Replay duration (s):                                        0.70\n"
      "--------------------- Per-Op Latency (ms) ----------------------\n"
      "finish_read_prefetched count:                                  1\n"
      "finish_read_prefetched mean:                                0.00\n"
      "finish_read_prefetched p50:                                 0.00\n"
      "finish_read_prefetched p99:                                 0.00\n"
      "finish_write count:                                            1\n"
      "finish_write mean:                                          0.00\n"
      "finish_write p50:                                           0.00\n"
      "finish_write p99:                                           0.00\n"
      "read_prefetched_results.enter count:                           1\n"
      "read_prefetched_results.enter mean:                         0.00\n"
      "read_prefetched_results.enter p50:                          0.00\n"
      "read_prefetched_results.enter p99:                          0.00\n"
      "read_prefetched_results.exit count:                            2\n"
      "read_prefetched_results.exit mean:                          0.00\n"
      "read_prefetched_results.exit p50:                           0.00\n"
      "read_prefetched_results.exit p99:                           0.00\n"
      "reserve_write count:                                           1\n"
      "reserve_write mean:                                         0.00\n"
      "reserve_write p50:                                          0.00\n"
      "reserve_write p99:                                          0.00\n"
      "submit_prefetch_task count:                                    1\n"
      "submit_prefetch_task mean:                                  0.00\n"
      "submit_prefetch_task p50:                                   0.00\n"
      "submit_prefetch_task p99:                                   0.00\n"
      "================================================================\n";
  EXPECT_EQ(r.out.substr(verbose.size(), block.size()), block);
  // Fleet's own block follows LMCache's, never inside it.
  EXPECT_NE(r.out.find("========================= Fleet Replay =========================",
                       verbose.size() + block.size()),
            std::string::npos);

  std::string z = ",0.000000,0.000000,0.000000,0.000000,0.000000,0.000000\r\n";
  EXPECT_EQ(slurp(out / "trace_replay_ops.csv"),
            "qualname,count,errors,mean_ms,p50_ms,p90_ms,p99_ms,min_ms,max_ms\r\n" + kP +
                "finish_read_prefetched,1,0" + z + kP + "finish_write,1,0" + z + kP +
                "read_prefetched_results.__enter__,1,0" + z + kP +
                "read_prefetched_results.__exit__,2,0" + z + kP + "reserve_write,1,0" + z + kP +
                "submit_prefetch_task,1,0" + z);

  std::string json = slurp(out / "trace_replay_summary.json");
  std::string op_json =
      "{\n      \"count\": 1,\n      \"errors\": 0,\n      \"max_ms\": 0.0,\n      \"mean_ms\": "
      "0.0,\n"
      "      \"min_ms\": 0.0,\n      \"p50_ms\": 0.0,\n      \"p90_ms\": 0.0,\n      \"p99_ms\": "
      "0.0\n    }";
  const std::string head = "{\n  \"duration_s\": 0.7,\n  \"ops\": {\n    \"" + kP;
  EXPECT_EQ(json.substr(0, head.size()), head);
  EXPECT_NE(json.find("\"" + kP + "finish_write\": " + op_json), std::string::npos) << json;
  EXPECT_EQ(json.back(), '\n');

  std::string jsonl = slurp(dir_ / "lines" / "r.jsonl");
  EXPECT_EQ(
      jsonl.substr(0, jsonl.find('\n') + 1),
      "{\"qualname\": \"" + kP + "reserve_write\", \"latency_ms\": 0.0, \"failed\": false}\n");
  EXPECT_NE(jsonl.find("{\"qualname\": \"" + kP +
                       "reserve_write_with_status\", \"latency_ms\": 0.0, \"failed\": true}\n"),
            std::string::npos);

  auto summary = nlohmann::json::parse(slurp(out / "fleet_summary.json"));
  EXPECT_EQ(summary["records"]["total"], 8);
  EXPECT_EQ(summary["records"]["replayed"], 7);
  EXPECT_EQ(summary["records"]["skipped"], 1);
  EXPECT_EQ(summary["records"]["failed"], 0);
  EXPECT_EQ(summary["nodes"][0]["read_exits_without_enter"], 1);
  EXPECT_EQ(summary["lateness_us"]["max"], 0.0);  // the virtual clock dispatches on time
}

TEST_F(EmbeddedReplay, FailedRecordExitsOneQuietAndNoCsv) {
  std::string trace = small_trace(dir_, /*with_failure=*/true);
  auto r = run(trace + engine_ + " --output-dir " + dir_.string() + " -q --no-csv");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(dir_ / "trace_replay_ops.csv"));
  auto summary = nlohmann::json::parse(slurp(dir_ / "fleet_summary.json"));
  EXPECT_EQ(summary["records"]["failed"], 1);
  EXPECT_EQ(summary["ops"][kP + "submit_prefetch_task"]["errors"], 1);
}

TEST_F(EmbeddedReplay, FormatJsonAndOutputFile) {
  std::string trace = small_trace(dir_);
  auto r = run(trace + engine_ + " --output-dir " + dir_.string() + " --format json --output " +
               (dir_ / "s.json").string());
  ASSERT_EQ(r.status, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["title"], "Trace Replay Result");
  EXPECT_EQ(j["metrics"]["overall"]["replayed"], 7);
  EXPECT_EQ(slurp(dir_ / "s.json"), r.out);
}

TEST_F(EmbeddedReplay, BadInputIsExitTwoWithAClearMessage) {
  EXPECT_EQ(run((dir_ / "missing.lct").string()).status, 2);
  EXPECT_EQ(run(dir_.string()).status, 2);  // a directory
  EXPECT_EQ(run(small_trace(dir_) + " --speed -1").status, 2);
  EXPECT_EQ(run(small_trace(dir_) + " --l2-adapter '{\"type\":\"nope\"}' --l1-size-gb 1").status,
            2);
}

TEST_F(EmbeddedReplay, VirtualClockRunsAreIdentical) {
  std::string fixture = ::fleet::test::shared_fixtures() + "/era3_small.lct";
  std::string common = fixture + " --config-from-trace --clock virtual -q --json --output-dir ";
  ASSERT_EQ(run(common + (dir_ / "a").string()).status, 0);
  ASSERT_EQ(run(common + (dir_ / "b").string()).status, 0);
  EXPECT_EQ(slurp(dir_ / "a" / "trace_replay_ops.csv"), slurp(dir_ / "b" / "trace_replay_ops.csv"));
  EXPECT_EQ(slurp(dir_ / "a" / "trace_replay_summary.json"),
            slurp(dir_ / "b" / "trace_replay_summary.json"));
  auto a = nlohmann::json::parse(slurp(dir_ / "a" / "fleet_summary.json"));
  auto b = nlohmann::json::parse(slurp(dir_ / "b" / "fleet_summary.json"));
  EXPECT_EQ(a["engine"]["counters"], b["engine"]["counters"]);
  EXPECT_EQ(a["digest_comparison"], "match (0afcc54a)");
}

TEST_F(EmbeddedReplay, FixtureReplaysWithZeroFailuresOnAGenerousL1) {
  std::string fixture = ::fleet::test::shared_fixtures() + "/era3_small.lct";
  auto r = run(fixture +
               " --speed 0 --l1-size-gb 64 --no-l1-use-lazy --eviction-policy LRU"
               " --l2-adapter '{\"type\":\"mock\",\"max_size_gb\":4,\"mock_bandwidth_gb\":10}'"
               " -q --output-dir " +
               dir_.string());
  ASSERT_EQ(r.status, 0);
  auto s = nlohmann::json::parse(slurp(dir_ / "fleet_summary.json"));
  EXPECT_EQ(s["records"]["total"], 603);
  EXPECT_EQ(s["records"]["replayed"], 603);
  EXPECT_EQ(s["records"]["failed"], 0);
  EXPECT_EQ(s["records"]["skipped"], 0);
  // A different replay-side config: LMCache's digest row says MISMATCH.
  EXPECT_EQ(s["digest_comparison"].get<std::string>().rfind("MISMATCH (rec=0afcc54a, run=", 0), 0u);
}

}  // namespace
