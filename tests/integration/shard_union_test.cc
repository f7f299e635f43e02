// N = 1, 2, 4 local workers: time and key sharding replay every record exactly once (the union
// of the shards is the trace), none replays it N times; key sharding gives each chunk one
// owner; the merged per-op numbers are the sum of the nodes'.
#include <fstream>
#include <functional>
#include <set>

#include "fleet/plan/shard_router.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/trace_writer.h"
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

struct Case {
  int workers;
  std::string shard;
};

class ShardUnion : public ::testing::TestWithParam<Case> {};

std::string trace_3k() { return synthetic_trace("union", 3000, /*tp=*/2); }

// What the coordinator's planner does, rerun in the test: per-worker records and per kind, and
// the (record, key) pairs each worker receives.
struct Expected {
  std::vector<uint64_t> records;
  std::vector<std::map<std::string, uint64_t>> per_kind;
  uint64_t keys_in = 0, keys_out = 0;
  std::map<uint64_t, std::set<int>> chunk_owners;
};
Expected replan(const std::string& path, plan::ShardMode mode, int n) {
  plan::RouterOptions o;
  o.mode = mode;
  o.window_s = 1.0;
  for (int i = 0; i < n; ++i) o.worker_names.push_back("local-" + std::to_string(i));
  plan::ShardRouter router(o);
  Expected e;
  e.records.resize(static_cast<size_t>(n));
  e.per_kind.resize(static_cast<size_t>(n));
  trace::FrameReader reader(path);
  trace::RecordView rec, sub;
  trace::Op op;
  while (reader.next(rec)) {
    trace::decode_op(rec, op);
    e.keys_in += op.op_keys().size();
    for (const auto& rt : router.route(rec)) {
      auto w = static_cast<size_t>(rt.worker);
      ++e.records[w];
      trace::parse_record(reinterpret_cast<const uint8_t*>(rt.body.data()), rt.body.size(), sub);
      trace::Op sop;
      trace::decode_op(sub, sop);
      ++e.per_kind[w][std::string(trace::op_kind_name(sop.kind))];
      e.keys_out += sop.op_keys().size();
      for (const auto& k : sop.op_keys()) {
        e.chunk_owners[trace::chunk_identity_hash(k.model_name, k.chunk_hash)].insert(rt.worker);
      }
    }
  }
  return e;
}

TEST_P(ShardUnion, EveryRecordReplayedTheRightNumberOfTimes) {
  const Case c = GetParam();
  const std::string path = trace_3k();
  const TraceCounts tc = count_trace(path);
  ScratchDir out;
  auto r =
      run_coordinator(quick_args({path, "--local", std::to_string(c.workers), "--shard", c.shard,
                                  "--window", "1", "--engine", "noop", "--speed", "0"}),
                      out / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto& nodes = r.summary["nodes"];
  ASSERT_EQ(nodes.size(), static_cast<size_t>(c.workers));
  uint64_t sum = 0;
  std::map<std::string, uint64_t> kinds;
  for (const auto& n : nodes) {
    EXPECT_EQ(n["status"], "ok");
    EXPECT_EQ(n["records"]["failed"], 0);
    EXPECT_EQ(n["records"]["skipped"], 0);
    // Even at --speed 0 nothing is dispatched before the common T0.
    EXPECT_GE(n["start_skew_us"].get<double>(), 0.0);
    sum += n["records"]["total"].get<uint64_t>();
    for (const auto& [k, v] : ops_by_kind(n["ops"])) kinds[k] += v;
  }
  const auto& plan = r.summary["plan"]["workers"];
  ASSERT_EQ(plan.size(), nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(nodes[i]["records"]["total"], plan[i]["records"]) << "node " << i << " vs its plan";
  }

  if (c.shard == "none") {
    for (const auto& n : nodes) EXPECT_EQ(n["records"]["total"].get<uint64_t>(), tc.records);
    for (const auto& [k, v] : tc.per_kind) EXPECT_EQ(kinds[k], v * c.workers) << k;
  } else if (c.shard == "time") {
    EXPECT_EQ(sum, tc.records);
    EXPECT_EQ(kinds, tc.per_kind);  // every record once: the per-kind counts match the file
    if (c.workers > 1) {
      for (const auto& n : nodes) EXPECT_GT(n["records"]["total"].get<uint64_t>(), 0u);
    }
  } else {
    // Key sharding: a split call becomes one sub-call per owner, so records grow by exactly
    // the extra parts, while keys are conserved: every key of every call reaches one node.
    Expected e = replan(path, plan::ShardMode::Key, c.workers);
    uint64_t split_calls = r.summary["plan"]["split_calls"].get<uint64_t>();
    uint64_t split_parts = 0;
    for (const auto& w : plan) split_parts += w["split_parts"].get<uint64_t>();
    EXPECT_EQ(sum, tc.records + split_parts - split_calls);
    if (c.workers == 1) {
      EXPECT_EQ(split_calls, 0u);
    }
    EXPECT_EQ(e.keys_out, e.keys_in);
    for (const auto& [chunk, owners] : e.chunk_owners) EXPECT_EQ(owners.size(), 1u);
    for (size_t i = 0; i < nodes.size(); ++i) {
      EXPECT_EQ(nodes[i]["records"]["total"].get<uint64_t>(), e.records[i]);
      EXPECT_EQ(ops_by_kind(nodes[i]["ops"]), e.per_kind[i]) << "node " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fleet, ShardUnion,
                         ::testing::Values(Case{1, "time"}, Case{2, "time"}, Case{4, "time"},
                                           Case{1, "key"}, Case{2, "key"}, Case{4, "key"},
                                           Case{1, "none"}, Case{2, "none"}, Case{4, "none"}),
                         [](const auto& info) {
                           return info.param.shard + std::to_string(info.param.workers);
                         });

// The merged trace_replay_ops.csv is the union of the nodes: per qualname, its count and
// errors are the sums of the nodes' in fleet_summary.json.
TEST(FleetMerge, MergedCsvCountsAreTheSumOfTheNodes) {
  const std::string path = trace_3k();
  ScratchDir out;
  auto r = run_coordinator(
      quick_args({path, "--local", "2", "--shard", "key", "--engine", "noop", "--speed", "0"}),
      out / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, std::pair<uint64_t, uint64_t>> node_sum;
  for (const auto& n : r.summary["nodes"]) {
    for (auto it = n["ops"].begin(); it != n["ops"].end(); ++it) {
      node_sum[it.key()].first += it.value()["count"].get<uint64_t>();
      node_sum[it.key()].second += it.value()["errors"].get<uint64_t>();
    }
  }
  std::string csv = read_file(r.dir + "/trace_replay_ops.csv");
  ASSERT_EQ(csv.rfind("qualname,count,errors,", 0), 0u) << csv;
  std::map<std::string, std::pair<uint64_t, uint64_t>> merged;
  size_t pos = csv.find("\r\n") + 2;
  while (pos < csv.size()) {
    size_t end = csv.find("\r\n", pos);
    ASSERT_NE(end, std::string::npos) << "CSV rows end with CRLF";
    std::string row = csv.substr(pos, end - pos);
    size_t c1 = row.find(','), c2 = row.find(',', c1 + 1), c3 = row.find(',', c2 + 1);
    merged[row.substr(0, c1)] = {std::stoull(row.substr(c1 + 1, c2 - c1 - 1)),
                                 std::stoull(row.substr(c2 + 1, c3 - c2 - 1))};
    pos = end + 2;
  }
  EXPECT_EQ(merged, node_sum);
  // And the merged summary in fleet_summary.json agrees with the CSV.
  for (const auto& [q, ce] : merged) {
    EXPECT_EQ(r.summary["ops"][q]["count"].get<uint64_t>(), ce.first) << q;
  }
  EXPECT_GT(merged.size(), 3u);
}

// Batch codecs: zstd (any level) and uncompressed batches carry the same records, so the nodes
// replay exactly the same thing; auto picks "none" for --local workers (loopback); the
// coordinator reports what each link used and the bytes before and after encoding.
TEST(FleetMerge, EveryBatchCodecReplaysTheSameRecords) {
  const std::string path = trace_3k();
  std::vector<std::vector<std::map<std::string, uint64_t>>> per_node_ops;
  for (const std::vector<std::string>& codec :
       {std::vector<std::string>{},
        {"--compression", "zstd"},
        {"--compression", "zstd", "--compression-level", "-5"},
        {"--compression", "none"}}) {
    ScratchDir out;
    // Streamed: with references (the default on loopback) there would be no frames to encode.
    std::vector<std::string> args = {
        path,       "--local", "2",       "--shard", "time",           "--window", "1",
        "--engine", "noop",    "--speed", "0",       "--trace-access", "stream"};
    args.insert(args.end(), codec.begin(), codec.end());
    auto r = run_coordinator(quick_args(args), out / "run");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto& c = r.summary["coordinator"];
    const std::string want = codec.empty() || codec[1] == "none" ? "none"
                             : codec.size() > 2                  ? "zstd:-5"
                                                                 : "zstd:1";
    EXPECT_EQ(c["batch_codecs"], nlohmann::json::array({want, want}));
    const auto raw = c["batch_raw_bytes"].get<uint64_t>();
    const auto sent = c["batch_wire_bytes"].get<uint64_t>();
    EXPECT_GT(raw, 0u);
    if (want == "none")
      EXPECT_EQ(sent, raw);
    else
      EXPECT_LT(sent, raw);
    std::vector<std::map<std::string, uint64_t>> nodes;
    for (const auto& n : r.summary["nodes"]) {
      EXPECT_EQ(n["records"]["failed"], 0);
      nodes.push_back(ops_by_kind(n["ops"]));
    }
    per_node_ops.push_back(nodes);
  }
  for (size_t i = 1; i < per_node_ops.size(); ++i) EXPECT_EQ(per_node_ops[i], per_node_ops[0]) << i;
}

// Copies `clean` to `path`, appending a byte to the body of every record `damage` picks (a
// frame msgspec refuses, which only a walk to the end of its args can see). Counts records
// and damaged ones.
void damaged_copy(const std::string& clean, const std::string& path,
                  const std::function<bool(uint64_t, const trace::RecordView&)>& damage,
                  uint64_t& records, uint64_t& bad) {
  const std::string bytes = read_file(clean);
  trace::FrameReader reader(clean);
  trace::RecordView rec;
  std::string damaged;
  size_t copied = 0;
  while (reader.next(rec)) {
    if (damaged.empty()) damaged = bytes.substr(0, rec.file_offset);  // the header frame(s)
    std::string body(reinterpret_cast<const char*>(rec.body), rec.body_size);
    if (damage(records++, rec)) {
      body += '\xc0';
      ++bad;
    }
    damaged += trace::frame_bytes(body);
    copied = rec.file_offset + 4 + rec.body_size;
  }
  ASSERT_EQ(copied, bytes.size());
  std::ofstream f(path, std::ios::binary);
  f << damaged;
}

// The coordinator defers the args check to its router's walk: a frame msgspec would refuse is
// still counted once as malformed and replayed nowhere, in every shard mode (here: a byte
// appended to every 10th record, which only a walk to the end of its args can see).
TEST(FleetMerge, MalformedFramesAreCountedOnceAndNeverReplayed) {
  uint64_t records = 0, bad = 0;
  ScratchDir out;
  const std::string path = out / "damaged.lct";
  damaged_copy(
      trace_3k(), path, [](uint64_t i, const trace::RecordView&) { return i % 10 == 9; }, records,
      bad);
  trace::RecordView rec;
  // The strict reader's verdict is the reference.
  trace::FrameReader strict(path);
  uint64_t strict_records = 0;
  while (strict.next(rec)) ++strict_records;
  ASSERT_EQ(strict.counters().malformed_skipped, bad);
  ASSERT_EQ(strict_records, records - bad);
  for (const std::string shard : {"none", "time", "key"}) {
    SCOPED_TRACE(shard);
    auto r = run_coordinator(quick_args({path, "--local", "2", "--shard", shard, "--window", "1",
                                         "--engine", "noop", "--speed", "0"}),
                             out / ("run-" + shard));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.summary["trace"]["malformed_frames_dropped"].get<uint64_t>(), bad);
    EXPECT_EQ(r.summary["plan"]["records"].get<uint64_t>(), records - bad);
    uint64_t replayed = 0;
    for (const auto& n : r.summary["nodes"]) replayed += n["records"]["total"].get<uint64_t>();
    if (shard == "none")
      EXPECT_EQ(replayed, 2 * (records - bad));
    else if (shard == "time")
      EXPECT_EQ(replayed, records - bad);
    else
      EXPECT_GE(replayed, records - bad);  // split calls add parts
  }
}

// T0 stands for the first replayable record: a malformed first record (its args fail only the
// deferred check) must not set the start instant, or every node would idle for the gap.
TEST(FleetMerge, MalformedFirstRecordsDoNotSetTheStartInstant) {
  const std::string clean = synthetic_trace("first-bad", 300);
  const double t_first = count_trace(clean).t_first;
  uint64_t records = 0, bad = 0;
  ScratchDir out;
  const std::string path = out / "first-bad.lct";
  damaged_copy(
      clean, path, [&](uint64_t, const trace::RecordView& r) { return r.t_mono < t_first + 0.3; },
      records, bad);
  ASSERT_GT(bad, 0u);
  auto r = run_coordinator(
      quick_args({path, "--local", "1", "--shard", "none", "--engine", "noop"}), out / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.summary["trace"]["malformed_frames_dropped"].get<uint64_t>(), bad);
  // Without the fix the first dispatch comes >= 300 ms after T0.
  EXPECT_LT(r.summary["nodes"][0]["start_skew_us"].get<double>(), 100000.0)
      << r.summary["nodes"][0].dump();
}

}  // namespace
}  // namespace fleet::test
