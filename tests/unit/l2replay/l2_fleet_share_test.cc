// One node's share of an L2 replay across the fleet (docs/l2-traces.md, "Across the fleet"):
// the shares partition the operations (source, key) or repeat them (none); files merge on the
// aligned timeline with each file's order kept; key sharding keeps a request's chain on one
// node and counts the edges it cuts; the DONE encoding round-trips and the merge is exact.
#include "fleet/l2replay/l2_fleet_share.h"

#include <gtest/gtest.h>

#include <set>

#include "fleet/l2replay/l2_fleet_result.h"
#include "fleet/l2replay/l2_fleet_stats.h"
#include "l2_trace_builder.h"

namespace fleet::l2replay {
namespace {

using namespace build;

std::string chains(const std::string& name, int base, int requests, double start) {
  L2TraceBuilder b;
  b.at(start);
  int64_t task = 1;
  for (int i = 0; i < requests; ++i) {
    const int64_t rid = 100 + i, st = task++, lk = task++, ld = task++;
    b.store(st, {key(base + 2 * i), key(base + 2 * i + 1)}).store_done(st);
    b.lookup(rid, lk, {key(base + 2 * i + 1)}).lookup_done(rid, lk, {0});
    b.load(rid, ld, {key(base + 2 * i + 1)}).load_done(rid, ld, {0});
    b.unlock(rid, {key(base + 2 * i + 1)});
  }
  return b.end().write(name);
}

L2Share share_of(const std::vector<std::string>& files, const std::vector<double>& shift,
                 const L2ShareOptions& o) {
  const std::vector<size_t> read = l2_files_of_node(files.size(), o);
  std::vector<L2Plan> plans;
  for (size_t f : read) plans.push_back(build_l2_plan(files[f]).value());
  auto s = build_l2_share(std::move(plans), read, shift, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s).value();
}

L2ShareOptions options(L2Shard shard, int node, int count) {
  L2ShareOptions o{shard, node, count, {}};
  for (int i = 0; i < count; ++i) o.worker_names.push_back("local-" + std::to_string(i));
  return o;
}

TEST(L2FleetShare, SourcePutsFileIOnNodeIModN) {
  const std::vector<std::string> files = {chains("s0", 0, 3, 1), chains("s1", 50, 4, 1),
                                          chains("s2", 90, 5, 1)};
  const std::vector<double> shift = {0, 0, 0};
  EXPECT_EQ(l2_files_of_node(3, options(L2Shard::Source, 0, 2)), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(l2_files_of_node(3, options(L2Shard::Source, 1, 2)), (std::vector<size_t>{1}));
  EXPECT_EQ(l2_files_of_node(3, options(L2Shard::None, 1, 2)), (std::vector<size_t>{0, 1, 2}));
  const L2Share a = share_of(files, shift, options(L2Shard::Source, 0, 2));
  const L2Share b = share_of(files, shift, options(L2Shard::Source, 1, 2));
  EXPECT_EQ(a.plan.ops.size(), 4u * (3 + 5));
  EXPECT_EQ(b.plan.ops.size(), 4u * 4);
  EXPECT_TRUE(a.figures.cut_edges.empty());
  EXPECT_EQ(a.figures.requests_kept, 8u);  // request ids repeat across files: counted per file
}

TEST(L2FleetShare, FilesMergeOnTheAlignedTimelineKeepingEachFilesOrder) {
  // File 1's records start 0.5 s (t_wall) after file 0's, with another t_mono origin.
  const std::vector<std::string> files = {chains("m0", 0, 2, 1.0), chains("m1", 50, 2, 40.0)};
  const std::vector<double> shift = {-1.0, 0.5 - 40.0};
  const L2Share s = share_of(files, shift, options(L2Shard::None, 0, 1));
  ASSERT_EQ(s.plan.ops.size(), 16u);
  for (size_t i = 1; i < s.plan.ops.size(); ++i)
    EXPECT_LE(s.plan.ops[i - 1].t_mono, s.plan.ops[i].t_mono + 1e-9) << i;
  EXPECT_NEAR(s.plan.ops.front().t_mono, 0.0, 1e-9);
  // Dependencies were remapped: every dep points at an op of the same kind chain, earlier.
  for (size_t i = 0; i < s.plan.ops.size(); ++i)
    for (uint32_t d : s.plan.deps(s.plan.ops[i])) EXPECT_LT(d, s.plan.ops.size());
  EXPECT_EQ(s.figures.kept_edges.at("load_task->lookup_task"), 4u);
}

TEST(L2FleetShare, KeyKeepsRequestsWholeAndCountsTheEdgesItCuts) {
  const std::vector<std::string> files = {chains("k0", 0, 60, 1)};
  std::set<std::pair<int, int64_t>> request_nodes;
  uint64_t ops = 0, cut = 0, kept_lookup_store = 0;
  for (int n = 0; n < 3; ++n) {
    const L2Share s = share_of(files, {0.0}, options(L2Shard::Key, n, 3));
    ops += s.plan.ops.size();
    for (const auto& [kind, c] : s.figures.cut_edges) {
      EXPECT_EQ(kind, "lookup_task->store");
      cut += c;
    }
    if (s.figures.kept_edges.count("lookup_task->store"))
      kept_lookup_store += s.figures.kept_edges.at("lookup_task->store");
    EXPECT_EQ(s.figures.kept_edges.count("load_task->lookup_task")
                  ? s.figures.kept_edges.at("load_task->lookup_task")
                  : 0u,
              s.figures.requests_kept);
    for (const L2PlanOp& op : s.plan.ops)
      if (op.request_id >= 0) request_nodes.emplace(n, op.request_id);
  }
  EXPECT_EQ(ops, 240u);                  // every operation on exactly one node
  EXPECT_EQ(request_nodes.size(), 60u);  // every request on exactly one node
  EXPECT_GT(cut, 0u);
  EXPECT_EQ(cut + kept_lookup_store, 60u);
}

TEST(L2FleetShare, KeyShardingWithoutEveryNameIsAnError) {
  std::vector<L2Plan> plans;
  plans.push_back(build_l2_plan(chains("e0", 0, 1, 1)).value());
  L2ShareOptions o{L2Shard::Key, 0, 2, {"only-one"}};
  EXPECT_FALSE(build_l2_share(std::move(plans), {0}, {0.0}, o).ok());
}

TEST(L2FleetResult, TheDoneEncodingRoundTripsAndTheMergeIsExact) {
  L2ReplayResult a, b;
  a.adapter_name = b.adapter_name = "mock";
  a.of(L2Op::Store).submitted = 3;
  b.of(L2Op::Store).submitted = 4;
  for (double ms : {1.0, 2.0, 3.0}) a.of(L2Op::Store).latency.record_success(ms);
  for (double ms : {10.0, 20.0, 30.0, 40.0}) b.of(L2Op::Store).latency.record_success(ms);
  a.of(L2Op::LookupTask).dependency_wait.add(0.5);
  b.of(L2Op::LookupTask).dependency_wait.add(0.25);
  a.total_replay_seconds = 2.0;
  b.total_replay_seconds = 3.0;
  L2ShareFigures fa, fb;
  fa.files = {"x"};
  fa.source_operations = {7};
  fa.cut_edges["lookup_task->store"] = 2;
  fb.files = {"x"};
  fb.source_operations = {7};
  fb.cut_edges["lookup_task->store"] = 1;
  stats::StatsCollector sa;
  put_l2_latencies(a, sa);
  auto back = l2_node_result_from(l2_result_json(a, fa), sa);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value().result.of(L2Op::Store).latency.count(), 3u);
  EXPECT_EQ(back.value().share.cut_edges.at("lookup_task->store"), 2u);
  const L2ReplayResult m = merge_l2_results({&back.value().result, &b});
  EXPECT_EQ(m.of(L2Op::Store).submitted, 7u);
  EXPECT_EQ(m.of(L2Op::Store).latency.summary().count, 7u);
  EXPECT_DOUBLE_EQ(m.of(L2Op::Store).latency.summary().p50_ms, 10.0);  // nearest rank of 7
  EXPECT_DOUBLE_EQ(m.of(L2Op::LookupTask).dependency_wait.max_s, 0.5);
  EXPECT_DOUBLE_EQ(m.of(L2Op::LookupTask).dependency_wait.total_s, 0.75);
  EXPECT_DOUBLE_EQ(m.total_replay_seconds, 3.0);
  const L2ShareFigures mf = merge_l2_share_figures({&fa, &fb});
  EXPECT_EQ(mf.files.size(), 1u);  // the same file read by two nodes counts once
  EXPECT_EQ(mf.cut_edges.at("lookup_task->store"), 3u);
  EXPECT_FALSE(l2_node_result_from(nlohmann::json::object(), sa).ok());
}

// The merged stats carry the speed the coordinator started every node with, not the first
// node's word for it (a node's DONE is input like any other).
TEST(L2FleetResult, TheMergedSpeedIsTheCoordinatorsNotANodes) {
  std::vector<L2FleetNode> nodes(2);
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].name = "n" + std::to_string(i);
    nodes[i].status = "ok";
    nodes[i].result.emplace();
    nodes[i].result->result.adapter_name = "mock";
    nodes[i].result->result.speed = i == 0 ? 3.0 : 10.0;
    nodes[i].result->result.of(L2Op::Store).submitted = 1;
  }
  L2FleetRunInfo run;
  run.speed = 10.0;
  const nlohmann::json j = l2_fleet_stats(run, nodes);
  EXPECT_DOUBLE_EQ(j.at("speedup").get<double>(), 10.0) << j.dump();
  EXPECT_NE(l2_fleet_terminal_summary(run, nodes).find("speed 10,"), std::string::npos)
      << l2_fleet_terminal_summary(run, nodes);
}

}  // namespace
}  // namespace fleet::l2replay

namespace fleet::l2replay {
namespace {

L2Window window(int64_t index, L2Op op, uint64_t dispatched, int64_t p99_ns) {
  L2Window w;
  w.index = index;
  L2WindowOp& o = w.ops[static_cast<size_t>(op)];
  o.dispatched = o.completed = dispatched;
  o.bytes_moved = 4096 * dispatched;
  o.latency_p50_ns = p99_ns / 2;
  o.latency_p99_ns = o.latency_max_ns = p99_ns;
  o.schedule_lag_max_ns = -1;  // signed fields keep their sign through the wire
  return w;
}

// Each node's windows travel in DONE exactly and merge on T0: counts sum per window and kind,
// latencies take the slowest node's, a window only one node had is kept as it is.
TEST(L2FleetResult, TimelinesTravelExactlyAndMergeWindowByWindow) {
  L2ReplayResult a, b;
  a.timeline = {window(0, L2Op::Store, 3, 1000), window(2, L2Op::LookupTask, 5, 7000)};
  b.timeline = {window(0, L2Op::Store, 4, 3000), window(1, L2Op::Store, 1, 10)};
  stats::StatsCollector none;
  auto back = l2_node_result_from(l2_result_json(a, L2ShareFigures{}), none);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const std::vector<L2Window>& t = back.value().result.timeline;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].index, 2);
  EXPECT_EQ(t[1].ops[1].latency_p99_ns, 7000);
  EXPECT_EQ(t[1].ops[1].schedule_lag_max_ns, -1);
  EXPECT_EQ(t[0].ops[0].bytes_moved, 3u * 4096);
  const L2ReplayResult m = merge_l2_results({&back.value().result, &b});
  ASSERT_EQ(m.timeline.size(), 3u);
  EXPECT_EQ(m.timeline[0].index, 0);
  EXPECT_EQ(m.timeline[0].ops[0].dispatched, 7u);
  EXPECT_EQ(m.timeline[0].ops[0].bytes_moved, 7u * 4096);
  EXPECT_EQ(m.timeline[0].ops[0].latency_p99_ns, 3000);
  EXPECT_EQ(m.timeline[0].ops[0].latency_p50_ns, 1500);
  EXPECT_EQ(m.timeline[1].ops[0].dispatched, 1u);
  EXPECT_EQ(m.timeline[2].ops[1].completed, 5u);
}

TEST(L2FleetResult, ADamagedTimelineIsRefusedNamingTheColumn) {
  L2ReplayResult a;
  a.timeline = {window(0, L2Op::Store, 3, 1000), window(1, L2Op::Store, 2, 1000)};
  nlohmann::json j = l2_result_json(a, L2ShareFigures{});
  j["timeline"]["by_kind"]["0"]["completed"].erase(0);
  stats::StatsCollector none;
  auto bad = l2_node_result_from(j, none);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("column completed of kind 0"), std::string::npos)
      << bad.status().message();
  j = l2_result_json(a, L2ShareFigures{});
  j["timeline"]["index"] = {1, 1};
  EXPECT_FALSE(l2_node_result_from(j, none).ok());
}

}  // namespace
}  // namespace fleet::l2replay

namespace fleet::l2replay {
namespace {

using namespace build;

// Requests that look up (and hit) keys the trace never stored: each key is prepared once.
std::string unstored_hits(const std::string& name, int base, int requests, double start) {
  L2TraceBuilder b;
  b.at(start);
  int64_t task = 1;
  for (int i = 0; i < requests; ++i) {
    const int64_t rid = 300 + i, lk = task++;
    b.lookup(rid, lk, {key(base + i), key(base + 50 + i)}).lookup_done(rid, lk, {0, 1});
  }
  return b.end().write(name);
}

uint64_t seeded(const std::vector<std::string>& files, const std::vector<double>& shift,
                L2Shard shard, int nodes, std::vector<size_t>* per_node = nullptr) {
  uint64_t total = 0;
  for (int n = 0; n < nodes; ++n) {
    L2ShareOptions o{shard, n, nodes, {}};
    for (int i = 0; i < nodes; ++i) o.worker_names.push_back("w" + std::to_string(i));
    const std::vector<size_t> read = l2_files_of_node(files.size(), o);
    std::vector<L2Plan> plans;
    for (size_t f : read) plans.push_back(build_l2_plan(files[f]).value());
    std::vector<L2PrepareClaim> others;  // as the worker gathers them (l2_replay_run.cc)
    for (size_t f = 0; f < files.size(); ++f) {
      if (shard != L2Shard::Source || f % size_t(nodes) == size_t(n)) continue;
      const L2Plan p = build_l2_plan(files[f]).value();
      auto c = l2_prepare_claims(p, f, shift[f], std::vector<int>(p.ops.size(), int(f) % nodes));
      others.insert(others.end(), c.begin(), c.end());
    }
    auto share = build_l2_share(std::move(plans), read, shift, o, std::move(others));
    EXPECT_TRUE(share.ok());
    total += share->plan.prepare.size();
    EXPECT_EQ(share->figures.prepare_objects, share->plan.prepare.size());
    if (per_node) per_node->push_back(share->plan.prepare.size());
  }
  return total;
}

// Who seeds (l2_fleet_prepare.h): under key and source the nodes' lists partition the plan's
// prepared objects; under none node 0 alone seeds; an object two files prepare is seeded once,
// by the node of the file whose lookup comes first on the aligned timeline.
TEST(L2FleetPrepare, EachPreparedObjectIsSeededByExactlyOneNode) {
  const std::string one = unstored_hits("prep1", 0, 12, 1.0);
  const uint64_t planned = build_l2_plan(one).value().prepare.size();
  ASSERT_EQ(planned, 24u);
  EXPECT_EQ(seeded({one}, {0.0}, L2Shard::Key, 3), planned);
  std::vector<size_t> none;
  EXPECT_EQ(seeded({one}, {0.0}, L2Shard::None, 3, &none), planned);
  EXPECT_EQ(none, (std::vector<size_t>{24, 0, 0}));
  // Two servers that found overlapping objects (keys 6..11 and 56..61 in both): seeded once.
  const std::string a = unstored_hits("prepA", 0, 12, 1.0), b = unstored_hits("prepB", 6, 12, 1.0);
  std::vector<size_t> by_source;
  EXPECT_EQ(seeded({a, b}, {0.0, 0.5}, L2Shard::Source, 2, &by_source), 36u);
  EXPECT_EQ(by_source, (std::vector<size_t>{24, 12}));  // a's lookups come first: a's node
  EXPECT_EQ(seeded({a, b}, {0.5, 0.0}, L2Shard::Source, 2, &(by_source = {})), 36u);
  EXPECT_EQ(by_source, (std::vector<size_t>{12, 24}));  // now b's do
  EXPECT_EQ(seeded({a, b}, {0.0, 0.5}, L2Shard::Key, 3), 36u);
  EXPECT_EQ(seeded({a, b}, {0.0, 0.5}, L2Shard::None, 2), 36u);
}

}  // namespace
}  // namespace fleet::l2replay
