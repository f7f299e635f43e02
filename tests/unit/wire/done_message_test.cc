// The DONE message written in one pass is a Done around a node result equal to
// encode_node_result's (its "pad" differs: it aligns the samples within the message), and
// decoding views its result in the received buffer instead of copying it; decoding checks every
// field the coordinator reads later, when it writes the report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/engine/counters_json.h"
#include "fleet/engine/engine_counters.h"
#include "fleet/replay/l2_windows.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/node_result_shape.h"
#include "fleet/wire/protocol.h"

namespace fleet::wire {
namespace {

// Samples a tenth of a femtosecond off the whole-ns grid: they travel as raw doubles.
NodeResult some_result() {
  NodeResult r;
  r.name = "node-a";
  r.status = NodeStatus::Ok;
  for (int i = 0; i < 20000; ++i)
    r.stats.record(i % 3 ? "finish_write" : "reserve_write", 0.001 * (i % 997) + 1e-10,
                   i % 101 == 0);
  r.total = 20000;
  return r;
}

TEST(DoneMessage, IsADoneCarryingTheEncodedNodeResult) {
  const NodeResult r = some_result();
  const auto msg = encode_done_message(r);
  const Envelope env = decode(msg.data(), msg.size());
  EXPECT_EQ(env.version, kProtocolVersion);
  ASSERT_EQ(env.type, "done");
  const Done d = env.as<Done>();
  const std::string_view result(d.result.ptr, d.result.size);
  // A view into `msg`, not a copy (the result is megabytes in a real run).
  EXPECT_GE(d.result.ptr, msg.data());
  EXPECT_LE(d.result.ptr + d.result.size, msg.data() + msg.size());
  const NodeResult back = decode_node_result(result);
  const NodeResult standalone = decode_node_result(encode_node_result(r));
  EXPECT_EQ(back.stats.summary(), r.stats.summary());
  EXPECT_EQ(standalone.stats.summary(), r.stats.summary());
  EXPECT_EQ(back.name, r.name);
  EXPECT_EQ(back.total, r.total);
  // The samples (the result's tail) start 8-byte aligned within the message, and sorted.
  uint64_t samples = 0;
  for (const auto& [q, s] : r.stats.ops()) samples += s.count();
  const char* first = d.result.ptr + d.result.size - samples * sizeof(double);
  EXPECT_EQ((first - msg.data()) % 8, 0);
  const auto* values = reinterpret_cast<const double*>(first);
  const size_t n_finish = r.stats.ops().at("finish_write").count();
  EXPECT_TRUE(std::is_sorted(values, values + n_finish));
  EXPECT_TRUE(std::is_sorted(values + n_finish, values + samples));
}

// Decoded with an owner, aligned sorted samples stay in the message: the stats share it.
TEST(DoneMessage, DecodedWithAnOwnerTheSamplesStayInTheMessage) {
  const NodeResult r = some_result();
  auto msg = std::make_shared<util::HugeString>(encode_done_message(r));
  const Done d = decode(msg->data(), msg->size()).as<Done>();
  const NodeResult back = decode_node_result({d.result.ptr, d.result.size}, msg);
  EXPECT_GT(msg.use_count(), 1) << "the samples were copied";
  EXPECT_EQ(back.stats.summary(), r.stats.summary());
  std::weak_ptr<util::HugeString> alive = msg;
  msg.reset();
  EXPECT_FALSE(alive.expired()) << "the stats keep the message alive";
  EXPECT_EQ(back.stats.ops().at("reserve_write").count(),
            r.stats.ops().at("reserve_write").count());
}

std::vector<double> sorted_samples(const stats::OpStats& s) {
  std::vector<double> v;
  s.for_each_sample_block([&](const double* d, std::size_t n) { v.insert(v.end(), d, d + n); });
  std::sort(v.begin(), v.end());
  return v;
}

// Latencies as the replay measures them, (end_ns - start_ns) / 1e6, travel as LEB128 ns
// deltas: ~1-2 bytes a sample instead of 8, and every sample comes back bit for bit, beside a
// qualname whose samples are not whole ns (raw doubles).
TEST(DoneMessage, WholeNanosecondSamplesTravelAsDeltasAndComeBackExactly) {
  NodeResult r;
  r.name = "node-ns";
  r.status = NodeStatus::Ok;
  uint64_t x = 88172645463325252ull;  // xorshift: latencies of 200 ns to ~2 ms
  for (int i = 0; i < 50000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const int64_t ns = 200 + static_cast<int64_t>(x % (i % 50 ? 5000 : 2000000));
    r.stats.record("submit_prefetch_task", static_cast<double>(ns) / 1e6, false);
  }
  for (int i = 0; i < 1000; ++i) r.stats.record("reserve_write", 0.25 + i * 1e-10, false);
  const std::string bytes = encode_node_result(r);
  EXPECT_LT(bytes.size(), 50000 * 2 + 1000 * 8 + 4096) << "the ns samples were not packed";
  const auto msg = std::make_shared<util::HugeString>(encode_done_message(r));
  const Done d = decode(msg->data(), msg->size()).as<Done>();
  for (const NodeResult& back :
       {decode_node_result(bytes), decode_node_result({d.result.ptr, d.result.size}, msg)}) {
    EXPECT_EQ(back.stats.summary(), r.stats.summary());
    for (const char* q : {"submit_prefetch_task", "reserve_write"}) {
      const std::vector<double> want = sorted_samples(r.stats.ops().at(q));
      const std::vector<double> got = sorted_samples(back.stats.ops().at(q));
      ASSERT_EQ(got.size(), want.size()) << q;
      EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(double)), 0) << q;
    }
  }
}

// A count the packed bytes cannot hold, or packed bytes cut short, is a ProtocolError.
TEST(DoneMessage, PackedSamplesThatDoNotAddUpAreAProtocolError) {
  NodeResult r;
  r.name = "node-ns";
  r.status = NodeStatus::Ok;
  for (int i = 0; i < 3000; ++i) r.stats.record("finish_write", (1000 + i) / 1e6, false);
  const std::string bytes = encode_node_result(r);
  EXPECT_NO_THROW(decode_node_result(bytes));
  EXPECT_THROW(decode_node_result(bytes.substr(0, bytes.size() - 1)), ProtocolError);
  EXPECT_THROW(decode_node_result(bytes + '\x01'), ProtocolError);
}

TEST(DoneMessage, AnEmptyResultIsStillAWholeMessage) {
  NodeResult r;
  r.name = "idle";
  r.status = NodeStatus::Ok;
  const auto msg = encode_done_message(r);
  const Done d = decode(msg.data(), msg.size()).as<Done>();
  const NodeResult back = decode_node_result({d.result.ptr, d.result.size});
  EXPECT_EQ(back.name, "idle");
  EXPECT_TRUE(back.stats.empty());
}

// Fuzzing (node_result_fuzz): nlohmann's msgpack reader recursed once per nesting level, so a
// result whose map nested ~50 000 arrays overflowed the coordinator's stack.
TEST(DoneMessage, ADeeplyNestedResultIsAProtocolError) {
  std::string meta(200000, '\x91');  // [[[[...nil...]]]]
  meta += '\xc0';
  std::string bytes(4, '\0');
  bytes[1] = static_cast<char>((meta.size() >> 16) & 0xff);
  bytes[2] = static_cast<char>((meta.size() >> 8) & 0xff);
  bytes[3] = static_cast<char>(meta.size() & 0xff);
  bytes += meta;
  EXPECT_THROW(decode_node_result(bytes), ProtocolError);
}

// A result as a worker with an L2 adapter (eviction on) writes it: engine counters and L2
// windows from the engine's own writers.
NodeResult result_with_l2() {
  NodeResult r = some_result();
  storage::EngineCounters c;
  storage::L2AdapterCounters a;
  a.type = "resp";
  a.eviction_enabled = true;
  a.evicted_keys = 12;
  c.adapters.push_back(a);
  r.engine_counters = engine::to_json(c.to_counters());
  std::vector<engine::L2Op> ops;
  for (int i = 0; i < 20; ++i) {
    ops.push_back({0, i % 2 ? "store" : "load", 1'000'000'000LL * (i / 10), 2000 + i, 4096, true});
  }
  r.l2_windows = replay::summarize_l2_ops(ops, 0);
  r.duration_s = 2.5;
  return r;
}

// The DONE's refusal, "" when it decodes.
std::string refusal(const NodeResult& r) {
  const auto msg = encode_done_message(r);
  const Done d = decode(msg.data(), msg.size()).as<Done>();
  try {
    decode_node_result({d.result.ptr, d.result.size});
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "";
}

TEST(DoneMessage, WhatAWorkerWritesPassesTheReportChecks) {
  NodeResult r = result_with_l2();
  ASSERT_TRUE(r.engine_counters["l2_adapters"][0]["eviction_enabled"].get<bool>());
  EXPECT_EQ(refusal(r), "");
  r.status = NodeStatus::Aborted;                // a partial result after ABORT
  r.engine_counters = nlohmann::json::object();  // an engine without counters
  r.l2_windows = nlohmann::json::object();       // nor L2
  EXPECT_EQ(refusal(r), "");
}

// Every field the coordinator reads only when it writes the report is checked when the DONE
// arrives: a mistyped one used to pass and then throw from the terminal summary (a
// json type_error naming no peer) after the run, or to be taken for the coordinator's own
// word (a "lost" status). Now the DONE is refused naming the field, and the coordinator names
// the peer (UndecodableResult / DoneShape integration tests).
TEST(DoneMessage, FieldsTheReportReadsAreCheckedWhenItArrives) {
  using json = nlohmann::json;
  struct Case {
    const char* field;
    void (*mutate)(NodeResult&);
  };
  const Case cases[] = {
      {"engine_counters: must be an object", [](NodeResult& r) { r.engine_counters = "x"; }},
      {"engine_counters: must be an object",
       [](NodeResult& r) { r.engine_counters = json::array(); }},
      {"engine_counters.l2_adapters: must be an array",
       [](NodeResult& r) { r.engine_counters["l2_adapters"] = "resp"; }},
      {"engine_counters.l2_adapters[0]: must be an object",
       [](NodeResult& r) { r.engine_counters["l2_adapters"][0] = 7; }},
      {"engine_counters.l2_adapters[0].eviction_enabled: must be a boolean",
       [](NodeResult& r) { r.engine_counters["l2_adapters"][0]["eviction_enabled"] = "yes"; }},
      {"engine_counters.l2_adapters[0].evicted_keys",
       [](NodeResult& r) { r.engine_counters["l2_adapters"][0]["evicted_keys"] = "12"; }},
      {"engine_counters.l2_adapters[0].evicted_keys",
       [](NodeResult& r) { r.engine_counters["l2_adapters"][0]["evicted_keys"] = 1.5; }},
      {"engine_counters.l2_adapters[0].type: must be a string",
       [](NodeResult& r) { r.engine_counters["l2_adapters"][0]["type"] = 3; }},
      {"status: expected \"ok\" or \"aborted\", got \"lost\"",
       [](NodeResult& r) { r.status = NodeStatus::Lost; }},
      {"duration_s: expected a finite number >= 0",
       [](NodeResult& r) { r.duration_s = std::nan(""); }},
      {"duration_s: expected a finite number >= 0", [](NodeResult& r) { r.duration_s = -1.0; }},
      {"l2_windows: must be an object", [](NodeResult& r) { r.l2_windows = "x"; }},
      {"l2_windows.windows[1].ops.store.p99_us: must be a finite number",
       [](NodeResult& r) { r.l2_windows["windows"][1]["ops"]["store"]["p99_us"] = NAN; }},
      {"engine_counters.l2_adapters[0].used_bytes: must be a finite number",
       [](NodeResult& r) { r.engine_counters["l2_adapters"][0]["used_bytes"] = INFINITY; }},
      {"engine_config.l1.size: must be a finite number",
       [](NodeResult& r) {
         r.engine_config = {{"l1", {{"size", -INFINITY}}}};
       }},
      {"l2_windows.totals.load",
       [](NodeResult& r) { r.l2_windows["totals"]["load"] = json::array(); }},
  };
  for (const auto& c : cases) {
    NodeResult r = result_with_l2();
    c.mutate(r);
    const std::string why = refusal(r);
    EXPECT_NE(why.find("malformed node result: "), std::string::npos) << c.field << ": " << why;
    EXPECT_NE(why.find(c.field), std::string::npos) << c.field << ": " << why;
  }
}

// What no worker can have sent (from a review with a fake worker): counts whose sum wraps past
// the total (the fleet's totals wrapped and the accounting still balanced), a NaN latency (the
// merged mean and percentiles NaN, report.html unwritten), an exact sum no sample set can have,
// a NaN in the L2 result (into l2_replay_stats.json).
TEST(DoneMessage, CountsAndSamplesNoWorkerCanHaveAreRefused) {
  NodeResult counts = some_result();
  counts.replayed = 20000 + (uint64_t{1} << 63);
  counts.skipped = uint64_t{1} << 63;
  EXPECT_NE(refusal(counts).find("exceed total 20000"), std::string::npos) << refusal(counts);
  NodeResult more = some_result();
  more.replayed = 20001;
  EXPECT_NE(refusal(more).find("exceed total"), std::string::npos) << refusal(more);
  NodeResult stopped = some_result();
  stopped.replayed = 19000;  // a run stopped early: fewer than its total finished
  EXPECT_EQ(refusal(stopped), "");

  NodeResult nan = some_result();
  nan.stats.record("finish_write", std::nan(""), false);
  nan.total += 1;
  EXPECT_NE(refusal(nan).find("samples of finish_write: sample"), std::string::npos)
      << refusal(nan);
  NodeResult negative = some_result();
  negative.stats.record("finish_write", -0.5, false);
  negative.total += 1;
  EXPECT_NE(refusal(negative).find("a latency is finite and not negative"), std::string::npos)
      << refusal(negative);

  NodeResult l2 = result_with_l2();
  l2.l2_replay = {{"speed", NAN}};
  EXPECT_NE(refusal(l2).find("l2_replay.speed: must be a finite number"), std::string::npos)
      << refusal(l2);
}

// A status word that names no status is refused as it arrives, shown printable and cut short.
TEST(DoneMessage, AnUnknownStatusWordIsRefusedNamingIt) {
  EXPECT_EQ(status_of("aborted"), NodeStatus::Aborted);
  try {
    (void)status_of(std::string(100, '\n'));
    ADD_FAILURE() << "a status of newlines decoded";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "status: expected \"ok\" or \"aborted\", got \"" + std::string(40, '?') + "...\"");
  }
}

// The wire spells each status by the one table, and reads back what it wrote.
TEST(DoneMessage, StatusNamesRoundTrip) {
  for (const auto& [name, status] : kNodeStatusNames) {
    EXPECT_EQ(node_status_name(status), name);
    EXPECT_EQ(node_status_from_name(name), status);
  }
  EXPECT_EQ(node_status_from_name("OK"), std::nullopt);
}

}  // namespace
}  // namespace fleet::wire
