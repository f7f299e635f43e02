// Records by reference (--trace-access): workers that can read the trace get 16-byte references
// instead of the records, and replay exactly what streaming would have replayed; a worker
// whose copy is missing or different is refused (shared) or streamed to (auto), and a copy
// that differs only in the middle is caught at the first reference that lands on it.
#include <fstream>

#include "fleet_fixture.h"

namespace fleet::test {
namespace {

std::string trace_2k() { return synthetic_trace("shared", 2000, /*tp=*/2); }

RunResult run_with(const std::string& path, const std::string& shard,
                   std::vector<std::string> extra, const std::string& out_dir) {
  // References are what these tests are about: the coordinator routes (with --trace-access
  // shared the workers would route themselves, self_routing_test.cc).
  std::vector<std::string> args = {path,       "--local",   "2",          "--shard", shard,
                                   "--window", "1",         "--engine",   "noop",    "--speed",
                                   "0",        "--routing", "coordinator"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_coordinator(quick_args(args), out_dir);
}

std::vector<std::map<std::string, uint64_t>> node_ops(const RunResult& r) {
  std::vector<std::map<std::string, uint64_t>> nodes;
  for (const auto& n : r.summary["nodes"]) nodes.push_back(ops_by_kind(n["ops"]));
  return nodes;
}

TEST(SharedTrace, EveryShardModeReplaysWhatStreamingReplays) {
  const std::string path = trace_2k();
  for (const std::string shard : {"time", "key", "none"}) {
    ScratchDir out;
    auto shared = run_with(path, shard, {"--trace-access", "shared"}, out / "shared");
    auto stream = run_with(path, shard, {"--trace-access", "stream"}, out / "stream");
    ASSERT_EQ(shared.code, 0) << shard << "\n" << shared.err;
    ASSERT_EQ(stream.code, 0) << shard << "\n" << stream.err;
    const auto& cs = shared.summary["coordinator"];
    const auto& cf = stream.summary["coordinator"];
    EXPECT_EQ(cs["trace_access"], nlohmann::json::array({"shared", "shared"})) << shard;
    EXPECT_EQ(cf["trace_access"], nlohmann::json::array({"stream", "stream"})) << shard;
    EXPECT_EQ(cf["records_by_reference"], 0u) << shard;
    // --shard none builds each batch once for both workers (their links encode alike).
    EXPECT_EQ(cs["batch_fanout"], shard == "none") << shard;
    EXPECT_EQ(cf["batch_fanout"], shard == "none") << shard;
    // Every record travels by reference, key sharding's parts of split calls as masked
    // references (protocol 6): nothing is re-encoded for workers that read the trace.
    uint64_t split_parts = 0;
    for (const auto& w : shared.summary["plan"]["workers"])
      split_parts += w["split_parts"].get<uint64_t>();
    EXPECT_EQ(cs["records_by_reference"].get<uint64_t>(), cs["records_sent"].get<uint64_t>())
        << shard;
    if (shard == "key") {
      EXPECT_GT(split_parts, 0u) << "the trace should split some calls";
    }
    // A reference is 16 bytes (a masked one 18 and a byte per 8 keys); the records are
    // hundreds.
    EXPECT_LT(cs["batch_raw_bytes"].get<uint64_t>() * 5, cf["batch_raw_bytes"].get<uint64_t>())
        << shard;
    // The workers replayed the same calls whether the parts were masked or re-encoded.
    EXPECT_EQ(node_ops(shared), node_ops(stream)) << shard;
    EXPECT_EQ(shared.summary["records"], stream.summary["records"]) << shard;
  }
}

TEST(SharedTrace, AWorkerThatCannotReadTheTraceIsRefusedOrStreamedTo) {
  const std::string path = trace_2k();
  ScratchDir out;
  const std::string missing = out / "nowhere/trace.lct";
  auto refused = run_with(
      path, "time", {"--trace-access", "shared", "--worker-trace-path", missing}, out / "refused");
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("cannot read the trace itself"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(missing), std::string::npos) << refused.err;

  auto fallback = run_with(path, "time", {"--worker-trace-path", missing}, out / "auto");
  ASSERT_EQ(fallback.code, 0) << fallback.err;
  EXPECT_EQ(fallback.summary["coordinator"]["trace_access"],
            nlohmann::json::array({"stream", "stream"}));
  EXPECT_EQ(fallback.summary["records"]["total"], count_trace(path).records);
}

TEST(SharedTrace, ACopyWithOtherContentIsRefusedAtTheHandshake) {
  const std::string path = trace_2k();
  ScratchDir out;
  std::string bytes = read_file(path);
  bytes[bytes.size() - 10] ^= 0x5a;  // inside the fingerprinted tail
  const std::string copy = out / "copy.lct";
  { std::ofstream(copy, std::ios::binary) << bytes; }
  auto r = run_with(path, "time", {"--trace-access", "shared", "--worker-trace-path", copy},
                    out / "run");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("different content"), std::string::npos) << r.err;
}

// Same size, same first and last 64 KiB, two frames of different lengths swapped in the
// middle: the handshake cannot see it, the first reference to the first frame must.
TEST(SharedTrace, ACopyThatDiffersInTheMiddleStopsTheRunWithExit2) {
  const std::string path = trace_2k();
  const std::string bytes = read_file(path);
  ASSERT_GT(bytes.size(), 512u << 10) << "the trace must be larger than both fingerprint spans";
  trace::FrameReader reader(path);
  trace::RecordView rec;
  uint64_t a_off = 0, a_size = 0, b_off = 0, b_size = 0;
  while (reader.next(rec)) {
    if (rec.file_offset < bytes.size() / 2) continue;
    if (a_size == 0) {
      a_off = rec.file_offset;
      a_size = rec.body_size;
    } else if (rec.body_size != a_size && rec.file_offset == a_off + 4 + a_size) {
      b_off = rec.file_offset;
      b_size = rec.body_size;
      break;
    } else {
      a_off = rec.file_offset;
      a_size = rec.body_size;
    }
  }
  ASSERT_GT(b_size, 0u) << "no two neighbouring frames of different sizes";
  std::string swapped = bytes.substr(0, a_off) + bytes.substr(b_off, 4 + b_size) +
                        bytes.substr(a_off, 4 + a_size) + bytes.substr(b_off + 4 + b_size);
  ASSERT_EQ(swapped.size(), bytes.size());
  ScratchDir out;
  const std::string copy = out / "swapped.lct";
  { std::ofstream(copy, std::ios::binary) << swapped; }
  auto r = run_with(path, "none", {"--trace-access", "shared", "--worker-trace-path", copy},
                    out / "run");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("could not read the run's records from its copy"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("at offset " + std::to_string(a_off)), std::string::npos) << r.err;
}

// Same size and same frame lengths, one record's bytes damaged in the middle: the references
// still match, but the record no longer parses at the worker. The run stops (exit 2) instead of
// replaying one record less than the coordinator sent.
TEST(SharedTrace, ACopyWithADamagedRecordStopsTheRunWithExit2) {
  const std::string path = trace_2k();
  std::string bytes = read_file(path);
  trace::FrameReader reader(path);
  trace::RecordView rec;
  uint64_t off = 0;
  while (reader.next(rec)) {
    if (rec.file_offset >= bytes.size() / 2) {
      off = rec.file_offset;
      break;
    }
  }
  ASSERT_GT(off, 0u);
  ASSERT_EQ(static_cast<unsigned char>(bytes[off + 4]), 0x85u) << "a record is a map of 5";
  bytes[off + 4] = static_cast<char>(0xc1);  // never a valid msgpack type byte
  ScratchDir out;
  const std::string copy = out / "damaged.lct";
  { std::ofstream(copy, std::ios::binary) << bytes; }
  auto r = run_with(path, "time", {"--trace-access", "shared", "--worker-trace-path", copy},
                    out / "run");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("damaged or incomplete batch stream"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not parse"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fleet::test
