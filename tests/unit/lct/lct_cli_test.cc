// The `lct` binary end to end: `info` byte-identical to LMCache's on the fixture, lint verdicts
// and exit codes, cat's JSON lines, gen determinism, and clear errors for unusable input.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../trace/trace_test_bytes.h"
#include "fleet/trace/format.h"
#include "lct_run.h"
#include "test_paths.h"

namespace fleet::trace {
namespace {

using namespace testing;

TEST(LctInfo, ByteIdenticalToLmcacheOnFixture) {
  LctRun r = lct("info era3_small.lct", ::fleet::test::shared_fixtures());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, read_bytes(::fleet::test::shared_fixtures() + "/era3_small.lct.info"));
  EXPECT_EQ(r.err, "");
}

TEST(LctInfo, EmptyTraceAndEventsLevel) {
  write_bytes(tmp("empty_ok.lct"), header_frame());
  LctRun r = lct("info " + tmp("empty_ok.lct"));
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("  duration:                   0.000s\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  sm_config_digest:           (none)\n"), std::string::npos);
  EXPECT_NE(r.out.find("  total_records:              0\n  ops: (none)\n"), std::string::npos);

  Header h;
  h.level = "events";
  h.level_meta = {
      {"instance_id", "srv-a"}, {"cache_event_schema_version", 1}, {"lmcache_version", "0.3.9"}};
  std::string batch = record_body_with_args("events.batch", [](MsgpackWriter& w, std::string&) {
    w.map(6);
    w.str("instance_id");
    w.str("srv-a");
    w.str("incarnation");
    w.integer(2);
    w.str("event_type");
    w.str("store");
    w.str("tier");
    w.str("l1");
    w.str("shared");
    w.boolean(false);
    w.str("entries");
    w.array(1);
    w.map(2);
    w.str("size_bytes");
    w.integer(4096);
    w.str("token_ids");
    w.array(1);
    w.integer(7);
  });
  write_bytes(tmp("events.lct"), header_frame(h) + frame_bytes(batch));
  r = lct("info " + tmp("events.lct"));
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("  cache_event_schema_version: 1\n  instance_id:                srv-a\n"
                       "  lmcache_version:            0.3.9\n  total_records:              1\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  events:\n    instances:                  1\n"
                       "      srv-a: incarnations=[2] restarts=0\n"
                       "    batches (type/tier/backend/shared):\n      store/l1/-/local: 1\n"
                       "    entries:\n      store: 1\n    store_bytes:                4096\n"
                       "    entries_with_tokens:        1\n"),
            std::string::npos)
      << r.out;
}

TEST(LctLint, FixtureAndGeneratedTracesAreClean) {
  LctRun r = lct("lint era3_small.lct", ::fleet::test::shared_fixtures());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("result: clean"), std::string::npos);
  for (int era : {1, 3, 4}) {
    std::string f = tmp("gen" + std::to_string(era) + ".lct");
    LctRun g = lct("gen -q -o " + f + " --seed 3 --duration 4 --rate 40 --tp 2 --groups 2 --era " +
                   std::to_string(era));
    ASSERT_EQ(g.code, 0) << g.err;
    LctRun l = lct("lint --json " + f);
    EXPECT_EQ(l.code, 0) << l.out;
    auto j = nlohmann::json::parse(l.out);
    EXPECT_TRUE(j["clean"].get<bool>());
    EXPECT_EQ(j["records"]["read"], j["records"]["decoded"]);
  }
}

TEST(LctLint, ReportsEveryKindOfProblem) {
  Header h;
  h.trace_schema_version = 1;
  auto K = [](int i) { return std::vector<ObjectKey>{test_key(i)}; };
  std::string unknown = record_body_with_args(
      kQualReserveWriteWithStatus, [](MsgpackWriter& w, std::string&) { w.map(0); }, 1.5);
  std::string bad_tag = record_body_with_args(
      kQualFinishWrite,
      [](MsgpackWriter& w, std::string&) {
        w.map(1);
        w.str("keys");
        w.wrapper("NoSuchTag");
        w.nil();
      },
      1.6);
  std::string bytes = header_frame(h) +
                      record_frame(test_op(OpKind::ReserveWrite, 1.0, K(1))) +  // never finished
                      record_frame(test_op(OpKind::FinishWrite, 1.2, K(2))) +   // not reserved
                      record_frame(test_op(OpKind::ReadExit, 0.5, K(3))) +    // backwards; no enter
                      record_frame(test_op(OpKind::ReadEnter, 1.3, K(4))) +   // never exited
                      record_frame(test_op(OpKind::FinishRead, 1.4, K(5))) +  // no read
                      frame_bytes(unknown) + frame_bytes(bad_tag) +
                      frame_bytes(std::string("\x93\x01\x02\x03", 4)) +  // malformed
                      std::string("\0\0", 2);                            // truncated tail
  write_bytes(tmp("problems.lct"), bytes);
  LctRun r = lct("lint --json " + tmp("problems.lct"));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["clean"].get<bool>());
  EXPECT_FALSE(j["header"]["replay_safe"].get<bool>());
  std::map<std::string, uint64_t> counts;
  for (const auto& c : j["checks"]) counts[c["id"]] = c["count"];
  for (const char* id :
       {"schema_not_replayable", "reserve_never_finished", "finish_without_reserve",
        "non_monotonic", "exit_without_enter", "enter_never_exited", "finish_read_without_read",
        "unknown_qualname", "args_decode_failed", "malformed", "truncated_tail",
        "placeholder_config"}) {
    EXPECT_EQ(counts[id], 1u) << id;
  }
  EXPECT_EQ(counts["abort_without_reserve"], 0u);
  EXPECT_EQ(j["unknown_qualnames"][std::string(kQualReserveWriteWithStatus)], 1);
  // The readable report names the offsets.
  LctRun t = lct("lint " + tmp("problems.lct"));
  EXPECT_EQ(t.code, 1);
  EXPECT_NE(t.out.find("FAIL  read_prefetched_results.__exit__ without an open __enter__"),
            std::string::npos)
      << t.out;
}

// Lint pairs read contexts with the replay's own code (fleet/trace/read_pairing.h): an exit
// closes the oldest open enter of exactly its key tuple, in the same order of keys.
TEST(LctLint, PairsReadContextsAsTheReplayDoes) {
  Header h;
  std::vector<ObjectKey> ab{test_key(1), test_key(2)}, ba{test_key(2), test_key(1)};
  std::string first = record_frame(test_op(OpKind::ReadEnter, 1.0, ab));
  std::string second = record_frame(test_op(OpKind::ReadEnter, 1.1, ab));
  std::string bytes = header_frame(h) + first + second +
                      record_frame(test_op(OpKind::ReadExit, 1.2, ba)) +  // another tuple
                      record_frame(test_op(OpKind::ReadExit, 1.3, ab));   // closes the first
  write_bytes(tmp("pairing.lct"), bytes);
  LctRun r = lct("lint --json " + tmp("pairing.lct"));
  auto j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> checks;
  for (const auto& c : j["checks"]) checks[c["id"]] = c;
  EXPECT_EQ(checks["exit_without_enter"]["count"], 1u) << r.out;
  ASSERT_EQ(checks["enter_never_exited"]["count"], 1u) << r.out;
  const uint64_t second_offset = header_frame(h).size() + first.size();
  EXPECT_EQ(checks["enter_never_exited"]["offsets"][0], second_offset) << r.out;
}

TEST(LctCat, JsonLinesWithDecodedArgs) {
  LctRun r = lct("cat --head 1 worked_example.lct", ::fleet::test::shared_fixtures());
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["offset"], 0x9f);
  EXPECT_EQ(j["t_mono"], 0.5);
  EXPECT_EQ(j["args"]["keys"][1]["chunk_hash"], "00000002");
  EXPECT_EQ(j["args"]["keys"][1]["cache_salt"], "");
  EXPECT_EQ(j["args"]["layout_desc"]["dtypes"][0], "torch.float16");
  EXPECT_EQ(j["args"]["mode"], "new");

  r = lct("cat era3_small.lct", ::fleet::test::shared_fixtures());
  ASSERT_EQ(r.code, 0);
  std::istringstream lines(r.out);
  std::string line;
  size_t n = 0;
  while (std::getline(lines, line)) {
    auto rec = nlohmann::json::parse(line);
    if (n == 0) {
      EXPECT_EQ(rec["args"]["spec"]["policy"], "PREFIX");
      EXPECT_EQ(rec["args"]["spec"]["group_layout_descs"]["0"]["shapes"][0][0], 2);
      EXPECT_EQ(rec["args"]["spec"]["keys"][0]["model_name"], "meta-llama/Llama-3.1-8B");
    }
    EXPECT_FALSE(rec.contains("decode_error"));
    ++n;
  }
  EXPECT_EQ(n, 603u);
}

TEST(LctCat, UndecodableArgsArePrintedWithDecodeError) {
  std::string bad = record_body_with_args(kQualFinishWrite, [](MsgpackWriter& w, std::string&) {
    w.map(1);
    w.str("keys");
    w.wrapper("NoSuchTag");
    w.integer(5);
  });
  write_bytes(tmp("cat_bad.lct"), header_frame() + frame_bytes(bad));
  LctRun r = lct("cat " + tmp("cat_bad.lct"));
  EXPECT_EQ(r.code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["decode_error"].get<std::string>().find("unknown codec tag"), std::string::npos);
  EXPECT_EQ(j["args"]["keys"]["__t__"], "NoSuchTag");
}

TEST(LctGen, SameSeedSameBytes) {
  std::string a = tmp("ga.lct"), b = tmp("gb.lct");
  std::string flags = " --seed 9 --records 300 --rate 25 --era 3 --tp 2 --models 2";
  LctRun ra = lct("gen -o " + a + flags);
  ASSERT_EQ(ra.code, 0) << ra.err;
  EXPECT_NE(ra.err.find("lct gen: wrote"), std::string::npos) << ra.err;
  ASSERT_EQ(lct("gen -q -o " + b + flags).code, 0);
  EXPECT_TRUE(read_bytes(a) == read_bytes(b));
  ASSERT_EQ(
      lct("gen -q -o " + b + " --seed 10 --records 300 --rate 25 --era 3 --tp 2 --models 2").code,
      0);
  EXPECT_FALSE(read_bytes(a) == read_bytes(b));
}

TEST(LctExitCodes, UsageUnreadableAndCorrupt) {
  EXPECT_EQ(lct("--help").code, 0);
  EXPECT_EQ(lct("").code, 2);
  EXPECT_EQ(lct("info").code, 2);
  EXPECT_EQ(lct("gen -o " + tmp("x.lct") + " --era 2").code, 2);
  EXPECT_EQ(lct("gen -o " + tmp("x.lct") + " --layout nonsense").code, 2);

  std::string dir = tmp("dir");
  ::mkdir(dir.c_str(), 0755);
  for (const char* cmd : {"info ", "lint ", "cat "}) {
    LctRun r = lct(cmd + dir);
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
    r = lct(cmd + tmp("missing.lct"));
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_NE(r.err.find("No such file"), std::string::npos) << r.err;
  }
  write_bytes(tmp("empty.lct"), "");
  LctRun r = lct("lint " + tmp("empty.lct"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("empty file"), std::string::npos) << r.err;

  Header h;
  h.magic = "XXXX";
  write_bytes(tmp("magic.lct"), header_frame(h));
  r = lct("info " + tmp("magic.lct"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad magic"), std::string::npos) << r.err;

  // A corrupt 4 GiB length prefix mid-file: a failed read (1) with the offset named.
  std::string hdr = header_frame();
  std::string rec = record_frame(test_op(OpKind::FinishWrite, 0.1, {test_key(1)}));
  write_bytes(tmp("huge.lct"), hdr + rec + prefix_bytes(0xfffffff0u) + "xx");
  r = lct("info " + tmp("huge.lct"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("offset " + std::to_string(hdr.size() + rec.size())), std::string::npos)
      << r.err;
  r = lct("lint " + tmp("huge.lct"));
  EXPECT_EQ(r.code, 1);
  r = lct("cat " + tmp("huge.lct"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);  // the record before it
}

TEST(LctL2, InfoLintCatOnTheL2Fixture) {
  const std::string dir = ::fleet::test::shared_fixtures() + "/l2";
  LctRun r = lct("info l2_small.lct", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  level:                      l2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    l2.unlock.submitted: 38\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    lookup keys hit/asked:      307 / 594\n"), std::string::npos);
  EXPECT_NE(r.out.find("    replay:                     accepted\n"), std::string::npos);
  r = lct("lint --json l2_small.lct", dir);
  EXPECT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["clean"].get<bool>());
  r = lct("cat l2_small.lct", dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 337);
  EXPECT_EQ(r.out.find("decode_error"), std::string::npos);
}

TEST(LctL2, LintRefusesAnL2TraceWithoutEndMarker) {
  Header h;
  h.level = "l2";
  write_bytes(tmp("no_marker.lct"), header_frame(h));
  LctRun r = lct("lint " + tmp("no_marker.lct"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL  no l2.trace.end marker"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace fleet::trace
