// Insight outputs with real processes (docs/outputs.md § Cache, § fleet_timeseries.csv,
// docs/report.md): the cache accounting adds up per node, merged and over time; a hand-derived
// trace gives exactly the buckets the era-3 rules predict; every run writes report.html and
// names it last; a partial run's page says so and `coordinator report DIR` rebuilds it.
#include <csignal>

#include "fleet/stats/timeseries_csv.h"
#include "fleet/trace/trace_writer.h"
#include "fleet_fixture.h"
#include "run_events.h"

namespace fleet::test {
namespace {

using json = nlohmann::json;
using trace::OpKind;

// Small L1 and a mock L2 on the virtual clock: every outcome occurs, deterministically.
std::vector<std::string> cache_args(const std::string& trace) {
  return {trace,
          "--clock",
          "virtual",
          "--speed",
          "1",
          "--l1-size-gb",
          "4",
          "--l2-adapter",
          R"({"type":"mock","max_size_gb":64,"mock_bandwidth_gb":10})",
          "--config-from-trace"};
}

uint64_t keys(const json& j, const char* k) { return j[k]["keys"].get<uint64_t>(); }

// requested = L1 + L2 + missed (keys and bytes), missed = the sum of its reasons.
void expect_adds_up(const json& lookup, const std::string& who) {
  SCOPED_TRACE(who);
  for (const char* unit : {"keys", "bytes"}) {
    EXPECT_EQ(lookup["requested"][unit].get<uint64_t>(), lookup["l1"][unit].get<uint64_t>() +
                                                             lookup["l2"][unit].get<uint64_t>() +
                                                             lookup["missed"][unit].get<uint64_t>())
        << unit;
    uint64_t reasons = 0;
    for (auto& [k, v] : lookup["missed_by_reason"].items()) reasons += v[unit].get<uint64_t>();
    EXPECT_EQ(reasons, lookup["missed"][unit].get<uint64_t>()) << unit;
  }
  EXPECT_EQ(keys(lookup, "in_flight"), 0u);
}

// The node's buckets from its own counters, in the shape of fleet_summary.json's cache.lookup.
json node_lookup(const json& node) {
  const json& c = node["engine"]["counters"]["cache"]["lookup"];
  json out;
  out["requested"] = c["requested"];
  out["l1"] = c["l1"];
  uint64_t l2k = 0, l2b = 0;
  for (const auto& a : c["l2"]) {
    l2k += a["keys"].get<uint64_t>();
    l2b += a["bytes"].get<uint64_t>();
  }
  out["l2"] = {{"keys", l2k}, {"bytes", l2b}};
  uint64_t mk = 0, mb = 0;
  for (const char* r : {"not_found", "load_failed", "trimmed", "abandoned"}) {
    out["missed_by_reason"][r] = c[r];
    mk += c[r]["keys"].get<uint64_t>();
    mb += c[r]["bytes"].get<uint64_t>();
  }
  out["missed"] = {{"keys", mk}, {"bytes", mb}};
  out["in_flight"] = {{"keys", 0}, {"bytes", 0}};
  return out;
}

class CacheAccounting : public ::testing::TestWithParam<int> {};  // 0 = embedded, else --local N

TEST_P(CacheAccounting, AddsUpPerNodeMergedAndOverTime) {
  ScratchDir dir;
  const std::string trace = synthetic_trace("insight", 6000);
  std::vector<std::string> args = cache_args(trace);
  if (GetParam() > 0) {
    args.insert(args.end(), {"--local", std::to_string(GetParam()), "--shard", "key"});
  }
  RunResult r = run_coordinator(quick_args(args), dir / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  const json& cache = r.summary["cache"];
  const json& lookup = cache["lookup"];
  expect_adds_up(lookup, "merged");
  EXPECT_GT(keys(lookup, "l1"), 0u);
  EXPECT_GT(keys(lookup, "l2"), 0u) << "the mock served nothing: the test does not exercise L2";
  EXPECT_GT(keys(lookup["missed_by_reason"], "not_found"), 0u);
  EXPECT_DOUBLE_EQ(lookup["l1_hit_rate"].get<double>(),
                   double(keys(lookup, "l1")) / double(keys(lookup, "requested")));
  EXPECT_NEAR(lookup["l1_l2_hit_rate"].get<double>() + lookup["miss_rate"].get<double>(), 1.0,
              1e-12);

  // In LMCache's own terms: with one object group, one rank and full-attention PREFIX lookups
  // (what `lct gen` writes) a key is a chunk, and the keys served are exactly LMCache's lookup
  // hits, l1_hit_chunks + the controller's hit (query_prefetch_lookup_hits).
  uint64_t lmcache_hits = 0;
  for (const auto& n : r.summary["nodes"]) {
    const json& c = n["engine"]["counters"];
    lmcache_hits +=
        c["prefetch_l1_hit_chunks"].get<uint64_t>() + c["l2_prefetch_hit_chunks"].get<uint64_t>();
  }
  EXPECT_EQ(keys(lookup, "l1") + keys(lookup, "l2"), lmcache_hits);

  // Merged = the sum of the nodes, and each node adds up on its own.
  std::map<std::string, json> per_node;
  json sum = {{"requested", 0}, {"l1", 0}, {"l2", 0}, {"missed", 0}};
  for (const auto& n : r.summary["nodes"]) {
    json nl = node_lookup(n);
    expect_adds_up(nl, n["name"].get<std::string>());
    for (auto& [k, v] : sum.items()) v = v.get<uint64_t>() + keys(nl, k.c_str());
    per_node[n["name"].get<std::string>()] = nl;
  }
  ASSERT_EQ(per_node.size(), static_cast<size_t>(std::max(1, GetParam())));
  for (const char* k : {"requested", "l1", "l2", "missed"}) {
    EXPECT_EQ(sum[k].get<uint64_t>(), keys(lookup, k)) << k;
  }

  // fleet_timeseries.csv: one row per window per node, and each node's windows add up to its
  // run totals (the last window takes what the engine decided at close).
  const auto file = stats::read_timeseries_csv(dir / "run/fleet_timeseries.csv").value();
  EXPECT_EQ(file.bad_rows, 0u);
  const auto& rows = file.rows;
  std::map<std::string, stats::RunWindow> totals;
  std::map<std::string, int64_t> last_index;
  for (const auto& row : rows) {
    stats::RunWindow& t = totals[row.node];
    t.records += row.w.records;
    t.lookup_keys += row.w.lookup_keys;
    t.l1_hit_keys += row.w.l1_hit_keys;
    t.l2_hit_keys += row.w.l2_hit_keys;
    t.missed_keys += row.w.missed_keys;
    EXPECT_GT(row.w.index, last_index.count(row.node) ? last_index[row.node] : -1)
        << "windows in order, one per index";
    last_index[row.node] = row.w.index;
  }
  ASSERT_EQ(totals.size(), per_node.size());
  uint64_t records = 0;
  for (const auto& [name, t] : totals) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(per_node.count(name));
    const json& nl = per_node[name];
    EXPECT_EQ(t.lookup_keys, keys(nl, "requested"));
    EXPECT_EQ(t.l1_hit_keys, keys(nl, "l1"));
    EXPECT_EQ(t.l2_hit_keys, keys(nl, "l2"));
    EXPECT_EQ(t.missed_keys, keys(nl, "missed"));
    records += t.records;
    EXPECT_GT(last_index[name], 10) << "a ~60 s trace at speed 1 spans many windows";
  }
  EXPECT_EQ(records, r.summary["records"]["total"].get<uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(Modes, CacheAccounting, ::testing::Values(0, 2), [](const auto& info) {
  return info.param ? "local" + std::to_string(info.param) : std::string("embedded");
});

trace::Op op(OpKind kind, double t, std::vector<std::string> chunks) {
  trace::MemoryLayout layout;
  layout.shapes = {{2, 4, 16, 2, 8}};  // 2048 bf16 = 4096 bytes per object
  layout.dtypes = {trace::DType::BFloat16};
  std::vector<trace::ObjectKey> ks;
  for (const auto& c : chunks) {
    trace::ObjectKey k;
    k.chunk_hash = c;
    k.model_name = "m";
    ks.push_back(k);
  }
  trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  o.t_wall = 1.7e9 + t;
  if (kind == OpKind::SubmitPrefetch) {
    o.spec.keys = ks;
    o.spec.group_layouts[0] = layout;
  } else {
    o.keys = ks;
  }
  if (kind == OpKind::ReserveWrite) o.layout = layout;
  return o;
}

// Era-3 rules (docs/era3-reference.md §1.5, §5) applied by hand:
//  * write A, B (2 keys stored);
//  * PREFIX [A, B, C, D], full attention: the L1 fold hits 2 chunks (A, B retained, from L1);
//    C and D are in no tier (the mock, when there is one, holds only A and B): 2 not found;
//  * SPARSE [C, A]: A from L1, C not found;
//  * WARM [A] counts apart (with no adapter: nowhere to warm from, 1 not found).
// So lookups: requested 6 = L1 3 + L2 0 + missed 3, bytes 4096 each.
std::string write_hand_trace(const std::string& path) {
  trace::Header h;
  h.t_mono_start = 100.0;
  h.t_wall_start = 1.7e9 + 100.0;
  trace::TraceWriter w(path, h);
  w.write_op(op(OpKind::ReserveWrite, 100.0, {"A", "B"}), trace::Era::Three);
  w.write_op(op(OpKind::FinishWrite, 100.1, {"A", "B"}), trace::Era::Three);
  w.write_op(op(OpKind::SubmitPrefetch, 100.5, {"A", "B", "C", "D"}), trace::Era::Three);
  trace::Op sparse = op(OpKind::SubmitPrefetch, 101.5, {"C", "A"});
  sparse.spec.policy = trace::TrimPolicy::Sparse;
  w.write_op(sparse, trace::Era::Three);
  trace::Op warm = op(OpKind::SubmitPrefetch, 102.5, {"A"});
  warm.spec.mode = trace::PrefetchMode::Warm;
  w.write_op(warm, trace::Era::Three);
  w.close();
  return path;
}

// A recording with a day-long silence: the virtual clock crosses it in one step, and the time
// series skips the empty windows instead of writing 86 400 of them.
TEST(CacheAccounting, AGapInTheRecordingIsNotWrittenWindowByWindow) {
  ScratchDir dir;
  trace::Header h;
  h.t_mono_start = 100.0;
  h.t_wall_start = 1.7e9 + 100.0;
  const std::string path = dir / "gap.lct";
  trace::TraceWriter w(path, h);
  w.write_op(op(OpKind::ReserveWrite, 100.0, {"A"}), trace::Era::Three);
  w.write_op(op(OpKind::FinishWrite, 100.1, {"A"}), trace::Era::Three);
  w.write_op(op(OpKind::SubmitPrefetch, 100.0 + 86'400, {"A"}), trace::Era::Three);
  w.close();
  RunResult r = run_coordinator({path, "--clock", "virtual", "--l1-size-gb", "1"}, dir / "run",
                                std::chrono::seconds(30));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = stats::read_timeseries_csv(dir / "run/fleet_timeseries.csv").value().rows;
  EXPECT_LE(rows.size(), 3u);
  uint64_t records = 0;
  for (const auto& row : rows) records += row.w.records;
  EXPECT_EQ(records, 3u);
  EXPECT_EQ(rows.back().w.index, 86'400);
  EXPECT_EQ(r.summary["cache"]["lookup"]["l1"]["keys"], 1);
}

TEST(CacheAccounting, AHandDerivedTraceGivesTheExpectedBuckets) {
  ScratchDir dir;
  const std::string trace = write_hand_trace(dir / "hand.lct");
  for (bool with_l2 : {false, true}) {
    SCOPED_TRACE(with_l2 ? "mock L2" : "no L2");
    std::vector<std::string> args = {trace, "--clock", "virtual", "--l1-size-gb", "1"};
    if (with_l2) {
      args.insert(args.end(),
                  {"--l2-adapter", R"({"type":"mock","max_size_gb":1,"mock_bandwidth_gb":10})"});
    }
    RunResult r = run_coordinator(quick_args(args), dir / (with_l2 ? "l2" : "l1"));
    ASSERT_EQ(r.code, 0) << r.err;
    const json& c = r.summary["cache"];
    const json& l = c["lookup"];
    EXPECT_EQ(keys(l, "requested"), 6u);
    EXPECT_EQ(keys(l, "l1"), 3u);
    EXPECT_EQ(keys(l, "l2"), 0u);
    EXPECT_EQ(keys(l, "missed"), 3u);
    EXPECT_EQ(keys(l["missed_by_reason"], "not_found"), 3u);
    EXPECT_EQ(l["requested"]["bytes"], 6 * 4096);
    EXPECT_DOUBLE_EQ(l["l1_hit_rate"].get<double>(), 0.5);
    EXPECT_EQ(c["writes"]["stored_keys"], 2);
    EXPECT_EQ(c["writes"]["reserved"]["bytes"], 2 * 4096);
    EXPECT_EQ(keys(c["warm"], "requested"), 1u);
    // With the mock, WARM finds A in L1 (the controller's lock pass); without, nowhere to warm.
    EXPECT_EQ(keys(c["warm"], with_l2 ? "l1" : "missed"), 1u);
    expect_adds_up(l, "hand");
  }
}

// The terminal's Cache section comes after LMCache's block, which stays first.
TEST(CacheAccounting, TheCacheSectionFollowsLmcachesBlock) {
  ScratchDir dir;
  RunResult r = run_coordinator(
      {write_hand_trace(dir / "hand.lct"), "--clock", "virtual", "--l1-size-gb", "1"}, dir / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("===================== Trace Replay Result", 0), 0u) << r.out;
  const size_t lmcache_end = r.out.find(std::string(64, '=') + "\n");
  const size_t cache =
      r.out.find("---------------------------- Cache -----------------------------");
  ASSERT_NE(cache, std::string::npos) << r.out;
  EXPECT_GT(cache, lmcache_end);
  EXPECT_NE(r.out.find("Served from L1:                                       50.00% (3)"),
            std::string::npos)
      << r.out;
}

json page_model(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"fleet-model\">";
  const size_t a = html.find(open);
  if (a == std::string::npos) return json();
  const size_t b = html.find("</script>", a);
  return json::parse(html.substr(a + open.size(), b - a - open.size()));
}

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  return t.substr(t.rfind('\n') + 1);
}

TEST(Report, EveryRunWritesItsPageAndNamesItLast) {
  ScratchDir dir;
  const std::string trace = synthetic_trace("insight", 6000);
  RunResult r = run_coordinator(quick_args(cache_args(trace)), dir / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string page = dir / "run/report.html";
  EXPECT_EQ(last_line(r.err), "report: " + page) << r.err;
  json model = page_model(read_file(page));
  ASSERT_TRUE(model.is_object());
  // Overriding the recorded config (smaller L1, a mock L2) is a what-if: a warning, not a failure.
  EXPECT_EQ(model["verdict"]["status"], "warn") << model["verdict"].dump(2);
  bool digest_item = false;
  for (const auto& i : model["verdict"]["items"]) {
    if (i["title"] == "Config digest") {
      digest_item = true;
      EXPECT_EQ(i["level"], "warn");
      EXPECT_NE(i["text"].get<std::string>().find("MISMATCH (rec="), std::string::npos);
    } else {
      EXPECT_EQ(i["level"], "ok") << i.dump();
    }
  }
  EXPECT_TRUE(digest_item);
  EXPECT_EQ(model["partial"], false);
  EXPECT_FALSE(model["series"]["records_per_s"].empty());
  EXPECT_GT(model["cache"]["lookup"]["l2_keys"].get<uint64_t>(), 0u);

  RunResult none = run_coordinator(
      quick_args({trace, "--engine", "noop", "--speed", "0", "--no-report"}), dir / "none");
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "none/report.html"));
  EXPECT_EQ(none.err.find("report: "), std::string::npos) << none.err;
}

// A run that ends within a clock tick of its start (the L2 fixture on the virtual clock) names
// its page too: file times come from the kernel's coarse clock, which may be a tick behind the
// instant the run started (the line was missing in 16 of 24 such runs before).
TEST(Report, EvenAnInstantRunNamesItsPage) {
  ScratchDir dir;
  const std::string trace = shared_fixtures() + "/l2/l2_small.lct";
  const std::string mock = R"({"type":"mock","max_size_gb":1,"mock_bandwidth_gb":100})";
  for (int i = 0; i < 12; ++i) {
    SCOPED_TRACE(i);
    RunResult r = run_coordinator({trace, "-q", "--l2-adapter", mock, "--clock", "virtual"},
                                  dir / "run");  // the same directory: each run rewrites it
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(last_line(r.err), "report: " + (dir / "run/report.html")) << r.err;
  }
}

// The page with its one moment-dependent value (when it was drawn) taken out.
std::string page_without_time(const std::string& html) {
  std::string page = html;
  const std::string when = page_model(html)["generated_at"].get<std::string>();
  for (size_t at = page.find(when); at != std::string::npos; at = page.find(when, at)) {
    page.replace(at, when.size(), "WHEN");
  }
  return page;
}

// A run draws its page from the summary it holds (util/json_read_back.h); `coordinator report
// DIR` draws it from fleet_summary.json. Both must be the same page, in every run shape.
void expect_report_redraws_the_same_page(const std::filesystem::path& run, const std::string& why) {
  SCOPED_TRACE(why);
  const std::filesystem::path redrawn =
      run.parent_path() / (run.filename().string() + "-redrawn.html");
  Process p({coordinator_bin(), "report", run.string(), "-o", redrawn.string()},
            run.parent_path().string(), "redraw");
  ASSERT_EQ(p.wait_exit(std::chrono::seconds(20)), 0) << p.err();
  const std::string drawn = read_file(run / "report.html");
  ASSERT_FALSE(drawn.empty());
  EXPECT_TRUE(page_without_time(drawn) == page_without_time(read_file(redrawn)))
      << "the run's page and `coordinator report`'s differ: " << run << " and " << redrawn;
}

TEST(Report, TheRunsPageIsTheOneItsFilesDraw) {
  ScratchDir dir;
  const std::string trace = synthetic_trace("insight", 6000);
  RunResult embedded = run_coordinator(quick_args(cache_args(trace)), dir / "embedded");
  ASSERT_EQ(embedded.code, 0) << embedded.err;
  expect_report_redraws_the_same_page(dir / "embedded", "embedded, cache and a mock L2");
  std::vector<std::string> fleet = cache_args(trace);
  fleet.insert(fleet.end(), {"--local", "2", "--shard", "key"});
  RunResult local = run_coordinator(quick_args(fleet), dir / "local");
  ASSERT_EQ(local.code, 0) << local.err;
  expect_report_redraws_the_same_page(dir / "local", "--local 2 --shard key");
  // A path that is not UTF-8 is written to the summary with U+FFFD: the page follows the file.
  const std::filesystem::path latin1 = dir / "caf\xe9.lct";
  std::filesystem::copy_file(trace, latin1);
  RunResult odd = run_coordinator(quick_args({latin1.string(), "--engine", "noop", "--speed", "0"}),
                                  dir / "latin1");
  ASSERT_EQ(odd.code, 0) << odd.err;
  expect_report_redraws_the_same_page(dir / "latin1", "a trace path that is not UTF-8");
}

TEST(Report, APartialRunIsMarkedAndRebuiltFromItsFiles) {
  ScratchDir dir;
  // ~30 s of recorded traffic on the real clock: interrupted after about one second.
  const std::string trace = synthetic_trace("insight-long", 3000, 1, 100.0);
  std::vector<std::string> argv = {
      coordinator_bin(), trace,        "--engine", "noop", "--output-dir",
      dir / "run",       "--progress", "never",    "-q"};
  Process p(argv, dir.path().string(), "interrupted");
  // Interrupted once the first window is written: the time series the page is rebuilt from
  // below has a row.
  ASSERT_TRUE(wait_replaying(p, dir / "run", "local", std::chrono::seconds(30)));
  p.signal(SIGINT);
  auto code = p.wait_exit(std::chrono::seconds(20));
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, static_cast<int>(ExitCode::kInterrupted)) << p.err();
  json model = page_model(read_file(dir / "run/report.html"));
  EXPECT_EQ(model["partial"], true) << p.err();
  expect_report_redraws_the_same_page(dir / "run", "interrupted");

  // Rebuilt by `coordinator report`, and again from the time series alone.
  std::filesystem::remove(dir / "run/report.html");
  Process rebuild({coordinator_bin(), "report", dir / "run"}, dir.path().string(), "rebuild");
  ASSERT_EQ(rebuild.wait_exit(std::chrono::seconds(20)), 0) << rebuild.err();
  EXPECT_EQ(last_line(rebuild.out()), "report: " + (dir / "run/report.html"));
  EXPECT_EQ(page_model(read_file(dir / "run/report.html"))["partial"], true);
  std::filesystem::remove(dir / "run/fleet_summary.json");
  Process csv_only({coordinator_bin(), "report", dir / "run", "-o", dir / "csv.html"},
                   dir.path().string(), "csv-only");
  ASSERT_EQ(csv_only.wait_exit(std::chrono::seconds(20)), 0) << csv_only.err();
  json from_csv = page_model(read_file(dir / "csv.html"));
  EXPECT_EQ(from_csv["partial"], true);
  EXPECT_NE(from_csv["partial_reason"].get<std::string>().find("no fleet_summary.json"),
            std::string::npos);
  EXPECT_FALSE(from_csv["series"]["records_per_s"].empty());

  // Not a run directory: a clear error naming it.
  std::filesystem::create_directories(dir / "empty");
  Process empty({coordinator_bin(), "report", dir / "empty"}, dir.path().string(), "empty");
  EXPECT_EQ(empty.wait_exit(std::chrono::seconds(20)), 2);
  EXPECT_NE(empty.err().find(dir / "empty"), std::string::npos) << empty.err();
}

}  // namespace
}  // namespace fleet::test
