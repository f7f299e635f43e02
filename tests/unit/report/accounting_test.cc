// The record accounting (report/accounting.h, docs/outputs.md § Record accounting): each
// record lands in exactly one bucket per node, the buckets add up to the trace, and a run whose
// counts do not add up is flagged, never reported as balanced.
#include "fleet/summary/accounting.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "fleet/trace/synthetic_trace.h"
#include "scratch_dir.h"

namespace fleet::report {
namespace {

NodeReport node(const std::string& name, uint64_t replayed, uint64_t skipped, uint64_t failed,
                wire::NodeStatus status = wire::NodeStatus::Ok) {
  NodeReport n;
  n.name = name;
  n.status = status;
  n.replayed = replayed;
  n.skipped = skipped;
  n.failed = failed;
  n.total = replayed + skipped + failed;
  return n;
}

NodeDelivery delivered(uint64_t routed, uint64_t sent) {
  NodeDelivery d;
  d.routed = routed;
  d.sent = sent;
  return d;
}

uint64_t bucket(const nlohmann::ordered_json& n, const char* name) {
  return n["not_delivered"][name].get<uint64_t>();
}

TEST(Accounting, UnshardedNodesEachAccountForTheWholeTrace) {
  RunReport r;
  r.nodes = {node("a", 90, 8, 2), node("b", 100, 0, 0)};
  AccountingInput in;
  in.shard = plan::ShardMode::None;
  in.trace_records = 100;
  in.records_routed = 100;
  in.nodes = {delivered(100, 100), delivered(100, 100)};
  const auto j = accounting_json(r, in);
  EXPECT_TRUE(j["balanced"].get<bool>()) << j.dump(2);
  EXPECT_EQ(j["expected"], 100);
  for (const auto& n : j["nodes"]) EXPECT_EQ(n["accounted"], 100) << n.dump();
  EXPECT_EQ(j["nodes"][0]["skipped"], 8);
  EXPECT_EQ(j["nodes"][0]["failed"], 2);
  r.accounting = j;
  EXPECT_TRUE(accounting_balances(r));
  EXPECT_EQ(accounting_problem(r), "");
}

TEST(Accounting, RecordsNeverReadAreCountedOnEveryUnshardedNode) {
  RunReport r;
  r.stopped_early = true;
  r.nodes = {node("a", 60, 0, 0, wire::NodeStatus::Aborted)};
  AccountingInput in;
  in.trace_records = 100;
  in.records_routed = 70;  // stopped after 70 reads; the rest counted by the remainder scan
  in.nodes = {delivered(70, 70)};
  in.nodes[0].reason = "aborted by the user";
  const auto j = accounting_json(r, in);
  EXPECT_TRUE(j["balanced"].get<bool>()) << j.dump(2);
  EXPECT_EQ(j["not_read"], 30);
  const auto& n = j["nodes"][0];
  EXPECT_EQ(n["replayed"], 60);
  EXPECT_EQ(bucket(n, "stopped"), 10);  // sent, dropped by the stop
  EXPECT_EQ(bucket(n, "not_read"), 30);
  EXPECT_EQ(n["reason"], "aborted by the user");
}

TEST(Accounting, KeyShardsAddUpWithSplitPartsAndALostNode) {
  // 100 records; 10 calls split in two, so 110 parts over two nodes. Node b was lost after
  // PROGRESS confirmed 30 of the 50 it was sent; 5 of its share were never sent.
  RunReport r;
  r.nodes = {node("a", 52, 3, 0), node("b", 0, 0, 4, wire::NodeStatus::Lost)};
  AccountingInput in;
  in.shard = plan::ShardMode::Key;
  in.trace_records = 100;
  in.records_routed = 100;
  in.split_extra_parts = 10;
  in.nodes = {delivered(55, 55), delivered(55, 50)};
  in.nodes[1].lost = true;
  in.nodes[1].confirmed = 30;
  in.nodes[1].reason = "no heartbeat for 2.0 s";
  const auto j = accounting_json(r, in);
  EXPECT_TRUE(j["balanced"].get<bool>()) << j.dump(2);
  EXPECT_EQ(j["expected"], 110);
  EXPECT_EQ(j["accounted"], 110);
  const auto& b = j["nodes"][1];
  EXPECT_EQ(b["failed"], 4);
  EXPECT_EQ(b["replayed"], 26);  // confirmed minus failed (a lost node's skipped are in here)
  EXPECT_EQ(bucket(b, "lost_with_node"), 20);
  EXPECT_EQ(bucket(b, "not_sent"), 5);
  EXPECT_EQ(b["accounted"], 55);
}

TEST(Accounting, CountsThatDoNotAddUpAreFlaggedNotHidden) {
  AccountingInput in;
  in.trace_records = 100;
  in.records_routed = 100;
  in.nodes = {delivered(100, 100)};

  RunReport replayed_less;  // a node that ran to the end but replayed 99 of the 100 it was sent
  replayed_less.nodes = {node("a", 99, 0, 0)};
  auto j = accounting_json(replayed_less, in);
  EXPECT_FALSE(j["balanced"].get<bool>()) << j.dump(2);
  replayed_less.accounting = j;
  EXPECT_FALSE(accounting_balances(replayed_less));
  EXPECT_NE(accounting_problem(replayed_less).find("a 99"), std::string::npos)
      << accounting_problem(replayed_less);

  RunReport inconsistent;  // totals that disagree with their parts
  inconsistent.nodes = {node("a", 100, 0, 0)};
  inconsistent.nodes[0].total = 101;
  EXPECT_FALSE(accounting_json(inconsistent, in)["balanced"].get<bool>());

  RunReport more_than_sent;  // replayed more than it was sent
  more_than_sent.nodes = {node("a", 100, 0, 0)};
  AccountingInput short_send = in;
  short_send.nodes = {delivered(100, 90)};
  EXPECT_FALSE(accounting_json(more_than_sent, short_send)["balanced"].get<bool>());

  RunReport missing_node;  // a node with no delivery record
  missing_node.nodes = {node("a", 100, 0, 0), node("b", 100, 0, 0)};
  EXPECT_FALSE(accounting_json(missing_node, in)["balanced"].get<bool>());

  RunReport none;  // a run that counted nothing is not flagged
  EXPECT_TRUE(accounting_balances(none));
}

TEST(Accounting, TheRemainderScanCountsEveryRecordLeft) {
  const test::ScratchDir dir;
  const std::string path = dir / "rest.lct";
  trace::SyntheticOptions o;
  o.records = 500;
  const auto stats = trace::write_synthetic_trace(path, o);
  ASSERT_GE(stats.records, 500u);
  trace::FrameReader reader(path);
  trace::RecordView rec;
  uint64_t read = 0;
  while (read < 123 && reader.next(rec)) ++read;
  ASSERT_EQ(read, 123u);
  const RemainingRecords rest = count_remaining_records(reader);
  EXPECT_EQ(rest.records, stats.records - 123);
  EXPECT_EQ(rest.error, "");

  // A file cut mid-frame: what was counted stands, and the reason is given.
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size - 7);
  trace::FrameReader cut(path, trace::ReaderOptions{});
  const RemainingRecords left = count_remaining_records(cut);
  EXPECT_LT(left.records, stats.records);
  EXPECT_GE(left.records + 2, stats.records);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace fleet::report
