// L2 adapter-level traces across the fleet (docs/l2-traces.md, "Across the fleet"): real worker
// processes over loopback read the L2 files themselves and replay their shares. --shard source
// puts 3 recorded servers' traces on 3 workers against one real redis-server (every operation
// accounted for, 0 dependency violations); --shard key keeps every request's chain on one node
// and counts the lookup->store edges it cuts; --shard none replays the shared fixture on every
// worker; the worker's policy refuses an adapter (ABORT naming it) and a file outside its
// --trace-root (naming the flag).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <regex>
#include <set>

#include "../unit/l2replay/l2_trace_builder.h"
#include "fleet_fixture.h"
#include "test_paths.h"

namespace fleet::test {
namespace {

using namespace std::chrono_literals;
using l2replay::build::key;
using l2replay::build::L2TraceBuilder;

const std::string kMock = R"({"type":"mock","max_size_gb":4,"mock_bandwidth_gb":100})";

bool have_redis() { return std::system("command -v redis-server >/dev/null 2>&1") == 0; }

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

class Redis {
 public:
  Redis(const std::string& dir, int port)
      : port_(port),
        proc_({"/usr/bin/redis-server", "--port", std::to_string(port), "--bind", "127.0.0.1",
               "--save", "", "--appendonly", "no"},
              // Its own log, by port: a server's "Ready to accept" in a log left by an
              // earlier one in a shared directory must not count as this one's.
              dir, "redis-" + std::to_string(port)) {
    wait_for([&] { return proc_.out().find("Ready to accept") != std::string::npos; }, 10s);
  }
  bool ok() { return proc_.running(); }
  std::string adapter_json() const {
    return R"({"type":"resp","host":"127.0.0.1","port":)" + std::to_string(port_) + "}";
  }

 private:
  int port_;
  Process proc_;
};

// One recorded server's traffic: `requests` requests, each a store of two keys, then a lookup
// of the second key that hit it, its load, and its unlock. Keys are the server's own
// (base + i) so that the servers' traffic does not collide in the shared L2.
std::string server_trace(const std::string& name, int base, int requests, double start) {
  L2TraceBuilder b;
  b.at(start);
  int64_t task = 1;
  for (int i = 0; i < requests; ++i) {
    const int64_t rid = 1000 + i;
    const int64_t st = task++, lk = task++, ld = task++;
    b.store(st, {key(base + 2 * i), key(base + 2 * i + 1)}).store_done(st);
    b.lookup(rid, lk, {key(base + 2 * i + 1)}).lookup_done(rid, lk, {0});
    b.load(rid, ld, {key(base + 2 * i + 1)}).load_done(rid, ld, {0});
    b.unlock(rid, {key(base + 2 * i + 1)});
  }
  b.end();
  return b.write(name);
}

nlohmann::json stats_of(const std::string& dir) {
  return nlohmann::json::parse(read_file(dir + "/l2_replay_stats.json"));
}

RunResult l2_run(std::vector<std::string> args, const std::string& name) {
  return run_coordinator(std::move(args), suite_dir() / name, 60s);
}

uint64_t submitted(const nlohmann::json& j, const char* op) {
  return j["operations_submitted"].value(op, uint64_t{0});
}

TEST(L2Fleet, ShardSourcePutsEachServerOnItsOwnNodeAgainstOneRedis) {
  if (!have_redis()) GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
  Redis redis(suite_dir().path(), free_port());
  ASSERT_TRUE(redis.ok());
  const std::vector<std::string> files = {server_trace("src0", 0, 40, 1.0),
                                          server_trace("src1", 200, 30, 5.0),
                                          server_trace("src2", 400, 20, 9.0)};
  // Each server's own embedded run: what the fleet must account for, operation by operation.
  std::map<std::string, uint64_t> expected;
  for (size_t i = 0; i < files.size(); ++i) {
    const RunResult e =
        l2_run({files[i], "-q", "--speed", "0", "--l2-adapter", redis.adapter_json()},
               "src_embedded" + std::to_string(i));
    ASSERT_EQ(e.code, 0) << e.err;
    const nlohmann::json own = stats_of(e.dir);  // a range-for over a temporary's member dangles
    for (const auto& [op, n] : own["operations_submitted"].items())
      expected[op] += n.get<uint64_t>();
  }
  const RunResult r = l2_run({files[0], files[1], files[2], "--local", "3", "--shard", "source",
                              "--speed", "0", "--l2-adapter", redis.adapter_json()},
                             "src_fleet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("--shard source"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node local-2: ok"), std::string::npos) << r.out;
  const nlohmann::json j = stats_of(r.dir);
  for (const auto& [op, n] : expected) EXPECT_EQ(submitted(j, op.c_str()), n) << op;
  EXPECT_EQ(j["fleet"]["dependency_violations"], 0);
  EXPECT_EQ(j["fleet"]["shard"], "source");
  EXPECT_EQ(j["operations_selected"], 4 * (40 + 30 + 20));
  ASSERT_EQ(j["nodes"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {  // file i on worker i (i mod 3)
    const nlohmann::json& n = j["nodes"][i];
    EXPECT_EQ(n["node"], "local-" + std::to_string(i));
    ASSERT_EQ(n["fleet"]["plan"]["files"].size(), 1u);
    EXPECT_NE(n["fleet"]["plan"]["files"][0].get<std::string>().find("src" + std::to_string(i)),
              std::string::npos);
    EXPECT_EQ(n["fleet"]["dependency_violations"], 0);
  }
  // Latencies merge exactly: the merged count is the sum of the nodes'.
  uint64_t lookups = 0;
  for (const auto& n : j["nodes"])
    lookups += n["fleet"]["by_operation"]["lookup_task"]["latency_ms"]["count"].get<uint64_t>();
  EXPECT_EQ(j["fleet"]["by_operation"]["lookup_task"]["latency_ms"]["count"], lookups);
  EXPECT_EQ(lookups, 40u + 30 + 20);
  // The fleet run's page: drawn from the merged stats, with the per-node table.
  const std::string page = read_file(r.dir + "/report.html");
  for (const char* node : {"local-0", "local-1", "local-2"})
    EXPECT_NE(page.find(node), std::string::npos) << node;
  // The fairness view: each node's share of the operations (4 per request: 160/120/80, Jain's
  // index 360^2 / (3 (160^2+120^2+80^2)) = 0.931) and each kind's latency across nodes.
  EXPECT_NE(page.find("<section id=\"fairness\""), std::string::npos);
  EXPECT_NE(page.find("id=\"l2-fair-kinds\""), std::string::npos);
  const std::string open = "<script type=\"application/json\" id=\"fleet-model\">";
  const size_t at = page.find(open);
  ASSERT_NE(at, std::string::npos);
  const size_t from = at + open.size();
  const nlohmann::json model =
      nlohmann::json::parse(page.substr(from, page.find("</script>", from) - from));
  EXPECT_NEAR(model["fairness"]["operations_jain"].get<double>(), 129600.0 / 139200.0, 1e-9);
  std::multiset<uint64_t> per_node;
  for (const auto& n : model["fairness"]["nodes"]) per_node.insert(n["operations"].get<uint64_t>());
  EXPECT_EQ(per_node, (std::multiset<uint64_t>{80, 120, 160}));
  size_t timed = 0;
  for (const auto& k : model["fairness"]["kinds"]) {
    if (k["p99_jain"].is_null()) continue;  // a kind no node timed (null, not a guess)
    ++timed;
    EXPECT_GT(k["p99_jain"].get<double>(), 1.0 / 3 - 1e-9) << k["kind"];
    EXPECT_LE(k["p99_jain"].get<double>(), 1.0 + 1e-9) << k["kind"];
  }
  EXPECT_GE(timed, 3u);  // store, lookup, load at least
}

// Requests whose lookup hits the second key of a two-key store: the store goes to its first
// key's owner, the request to its lookup's first key's owner, so some lookup->store edges cross.
// Written again once the scratch directory of the test that wrote it is gone (tests run in one
// process share the static; each test's directory is its own).
std::string crossing_trace() {
  static std::string path;
  if (path.empty() || !std::filesystem::exists(path)) path = server_trace("keyshard", 0, 60, 1.0);
  return path;
}

// The merged (or one node's) timeline: per kind, each column adds up to the kind's totals.
void expect_timeline_adds_up(const nlohmann::json& stats) {
  const nlohmann::json& t = stats["fleet"]["timeline"];
  ASSERT_FALSE(t["index"].empty()) << stats["fleet"].dump();
  for (const auto& [kind, cols] : t["by_operation"].items()) {
    const nlohmann::json& op = stats["fleet"]["by_operation"][kind];
    uint64_t dispatched = 0, completed = 0, bytes = 0;
    for (size_t i = 0; i < t["index"].size(); ++i) {
      dispatched += cols["dispatched"][i].get<uint64_t>();
      completed += cols["completed"][i].get<uint64_t>();
      bytes += cols["bytes_moved"][i].get<uint64_t>();
    }
    EXPECT_EQ(dispatched, op["submitted"].get<uint64_t>()) << kind;
    EXPECT_EQ(completed, op["completed"].get<uint64_t>()) << kind;
    EXPECT_EQ(bytes, op["bytes_moved"].get<uint64_t>()) << kind;
  }
  EXPECT_GE(t["by_operation"].size(), 4u);  // store, lookup, load, unlock
}

TEST(L2Fleet, ShardKeyKeepsEveryRequestChainOnOneNodeAndCountsCutEdges) {
  const RunResult e =
      l2_run({crossing_trace(), "-q", "--speed", "0", "--l2-adapter", kMock}, "key_embedded");
  ASSERT_EQ(e.code, 0) << e.err;
  const nlohmann::json whole = stats_of(e.dir);
  const RunResult r = l2_run(
      {crossing_trace(), "--local", "3", "--shard", "key", "--speed", "0", "--l2-adapter", kMock},
      "key_fleet");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = stats_of(r.dir);
  EXPECT_EQ(j["operations_submitted"], whole["operations_submitted"]);  // each op once
  EXPECT_EQ(j["fleet"]["dependency_violations"], 0);
  const nlohmann::json& kept = j["fleet"]["plan"]["dependency_edges"];
  const nlohmann::json& cut = j["fleet"]["plan"]["cut_dependency_edges"];
  const nlohmann::json& all = whole["fleet"]["plan"]["dependency_edges"];
  // A request's lookup -> load -> unlock chain is never cut: only lookup->store edges are.
  for (const auto& [kind, n] : cut.items()) EXPECT_EQ(kind, "lookup_task->store");
  EXPECT_EQ(kept["load_task->lookup_task"], all["load_task->lookup_task"]);
  EXPECT_EQ(kept["unlock->load_task"], all["unlock->load_task"]);
  ASSERT_TRUE(cut.contains("lookup_task->store")) << cut;
  EXPECT_GT(cut["lookup_task->store"].get<uint64_t>(), 0u);
  EXPECT_EQ(
      kept.value("lookup_task->store", uint64_t{0}) + cut["lookup_task->store"].get<uint64_t>(),
      all["lookup_task->store"].get<uint64_t>());
  EXPECT_NE(r.out.find("dependency edges cut by the sharding"), std::string::npos) << r.out;
  uint64_t requests = 0, ops = 0;
  for (const auto& n : j["nodes"]) {
    requests += n["fleet"]["plan"]["requests"].get<uint64_t>();
    ops += n["operations_selected"].get<uint64_t>();
  }
  EXPECT_EQ(requests, 60u);  // no request on two nodes
  EXPECT_EQ(ops, whole["operations_selected"].get<uint64_t>());
  expect_timeline_adds_up(j);
  for (const auto& n : j["nodes"]) expect_timeline_adds_up(n);
  // The page draws the merged timeline ("Operations over time"), not the no-timeline note.
  const std::string page = read_file(r.dir + "/report.html");
  EXPECT_NE(page.find("l2_ops_time"), std::string::npos);
  EXPECT_EQ(page.find("have no timeline"), std::string::npos);
}

TEST(L2Fleet, ShardNoneReplaysTheFixtureOnEveryWorker) {
  const std::string fixture = shared_fixtures() + "/l2/l2_small.lct";
  const RunResult r =
      l2_run({fixture, "--local", "2", "--speed", "0", "--l2-adapter", kMock}, "none_fleet");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = stats_of(r.dir);
  EXPECT_EQ(j["fleet"]["shard"], "none");
  EXPECT_EQ(j["source_operations_total"], 189);  // the file once
  EXPECT_EQ(j["operations_selected"], 2 * 189);  // replayed by both
  EXPECT_EQ(submitted(j, "store"), 2u * 68);
  EXPECT_EQ(j["fleet"]["dependency_violations"], 0);
  for (const auto& n : j["nodes"]) {
    EXPECT_EQ(n["operations_selected"], 189);
    EXPECT_EQ(n["fleet"]["plan"]["dependency_edges"]["lookup_task->store"],
              j["nodes"][0]["fleet"]["plan"]["dependency_edges"]["lookup_task->store"]);
  }
}

TEST(L2Fleet, AnAdapterOutsideTheWorkersPolicyIsAnAbortNamingIt) {
  const std::string adapter = R"({"type":"resp","host":"127.0.0.1","port":1})";
  const RunResult r = l2_run({crossing_trace(), "--local", "2", "--speed", "0", "--l2-adapter",
                              adapter, "--local-worker-arg=--allow-l2=10.9.9.9:6379"},
                             "policy_refused");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("127.0.0.1:1 is not in --allow-l2"), std::string::npos) << r.err;
}

TEST(L2Fleet, AWorkerThatCannotReadTheFileSaysWhichFlag) {
  const std::string root = suite_dir() / "another_trace_root";
  std::filesystem::create_directories(root);
  const RunResult r = l2_run({crossing_trace(), "--local", "2", "--speed", "0", "--l2-adapter",
                              kMock, "--local-worker-arg=--trace-root=" + root},
                             "trace_root_refused");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is outside --trace-root"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the worker reads L2 traces itself"), std::string::npos) << r.err;
}

TEST(L2Fleet, ALostWorkerLeavesTheOthersResultsAndIsNamed) {
  // Paced at speed 1 over ~4 s of recorded time: the run is still on when w0 is killed.
  L2TraceBuilder b;
  int64_t task = 1;
  for (int i = 0; i < 80; ++i) {
    b.at(1.0 + 0.05 * i);
    const int64_t st = task++, lk = task++;
    b.store(st, {key(i)}).store_done(st);
    b.lookup(500 + i, lk, {key(i)}).lookup_done(500 + i, lk, {0});
  }
  const std::string path = b.end().write("paced");
  ScratchDir dir;
  const std::vector<std::string> policy = {"--trace-root", "/", "--allow-l2", "*"};
  WorkerProcess w0(dir.path().string(), "w0", policy);
  WorkerProcess w1(dir.path().string(), "w1", policy);
  ASSERT_TRUE(w0.ok() && w1.ok()) << w0.proc().err() << w1.proc().err();
  std::filesystem::create_directories(dir / "run");
  Process coord({coordinator_bin(), path, "--progress", "never", "--workers",
                 w0.host_port() + "," + w1.host_port(), "--speed", "1", "--l2-adapter", kMock,
                 "--on-worker-loss", "continue", "--output-dir", dir / "run"},
                dir / "run", "coordinator");
  ASSERT_TRUE(wait_for([&] { return w0.proc().err().find("go: T0") != std::string::npos; }, 20s))
      << w0.proc().err();
  std::this_thread::sleep_for(800ms);
  kill(w0.proc().pid(), SIGKILL);
  auto code = coord.wait_exit(30s);
  ASSERT_TRUE(code) << "coordinator hung; stderr:\n" << coord.err();
  EXPECT_EQ(*code, 3) << coord.err();
  const nlohmann::json j = stats_of(dir / "run");
  EXPECT_EQ(j["fleet"]["nodes_without_result"], nlohmann::json::array({"w0"}));
  EXPECT_EQ(j["nodes"][0]["status"], "lost");
  EXPECT_FALSE(j["nodes"][0]["reason"].get<std::string>().empty());
  EXPECT_EQ(j["nodes"][1]["status"], "ok");
  EXPECT_EQ(submitted(j, "store"), 80u);  // w1's whole replay (--shard none)
  EXPECT_NE(coord.out().find("node w0: lost, no result"), std::string::npos) << coord.out();
  EXPECT_NE(coord.err().find("node w0 gave no result"), std::string::npos) << coord.err();
}

// Requests whose lookups hit objects the trace never stored (the source found them in L2
// before the recording began): what --prepare-l2 seeds. Each request looks up two such keys,
// loads them and unlocks; every third request also stores a fresh key first.
std::string prepared_trace() {
  static std::string path;  // written again once its test's scratch directory is gone
  if (!path.empty() && std::filesystem::exists(path)) return path;
  path = [] {
    L2TraceBuilder b;
    b.at(1.0);
    int64_t task = 1;
    for (int i = 0; i < 30; ++i) {
      const int64_t rid = 2000 + i;
      if (i % 3 == 0) {
        const int64_t st = task++;
        b.store(st, {key(200 + i)}).store_done(st);
      }
      const int64_t lk = task++, ld = task++;
      b.lookup(rid, lk, {key(i), key(100 + i)}).lookup_done(rid, lk, {0, 1});
      b.load(rid, ld, {key(i), key(100 + i)}).load_done(rid, ld, {0, 1});
      b.unlock(rid, {key(i), key(100 + i)});
    }
    return b.end().write("prepared");
  }();
  return path;
}

uint64_t lookup_mismatches(const nlohmann::json& stats) {
  return stats["outcome_mismatch_counts"]["lookup_task"].get<uint64_t>();
}

// --prepare-l2 across the fleet: each prepared object is seeded once on the shared L2, by the
// node that replays the first lookup needing it; the merged count is the embedded run's, and the
// lookups the source hit hit again (0 lookup mismatches, as embedded; without it they miss).
TEST(L2Fleet, PrepareSeedsEachObjectOnceAcrossTheFleet) {
  if (!have_redis()) GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
  Redis redis(suite_dir().path(), free_port());
  ASSERT_TRUE(redis.ok());
  auto args = [&](const std::string& ns, std::vector<std::string> more) {
    std::vector<std::string> a = {
        prepared_trace(),     "--speed", "0", "--l2-adapter", redis.adapter_json(),
        "--l2-key-namespace", ns};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const RunResult e = l2_run(args("emb", {"-q", "--prepare-l2"}), "prep_embedded");
  ASSERT_EQ(e.code, 0) << e.err;
  const nlohmann::json emb = stats_of(e.dir);
  const nlohmann::json emb_manifest =
      nlohmann::json::parse(read_file(e.dir + "/l2_prepare_manifest.json"));
  ASSERT_EQ(emb_manifest["prepared_objects"], 60);
  ASSERT_EQ(lookup_mismatches(emb), 0u);

  const RunResult r =
      l2_run(args("fleet", {"--local", "3", "--shard", "key", "--prepare-l2"}), "prep_fleet");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json manifest =
      nlohmann::json::parse(read_file(r.dir + "/l2_prepare_manifest.json"));
  EXPECT_EQ(manifest["prepared_objects"], emb_manifest["prepared_objects"]);
  EXPECT_EQ(manifest["prepared_bytes"], emb_manifest["prepared_bytes"]);
  EXPECT_EQ(manifest["store_tasks_failed"], 0);
  uint64_t seeded = 0;
  for (const auto& n : manifest["nodes"]) seeded += n["prepared_objects"].get<uint64_t>();
  EXPECT_EQ(seeded, 60u);  // each object by one node
  const nlohmann::json j = stats_of(r.dir);
  EXPECT_EQ(j["fleet"]["plan"]["prepare_objects"], 60);
  EXPECT_EQ(lookup_mismatches(j), lookup_mismatches(emb));
  EXPECT_EQ(j["outcome_mismatch_count"], emb["outcome_mismatch_count"]);
  EXPECT_NE(r.out.find("L2 prepare: 60 objects"), std::string::npos) << r.out;

  // The same fleet run without seeding: the source's hits miss.
  const RunResult bare = l2_run(args("bare", {"--local", "3", "--shard", "key"}), "prep_bare");
  ASSERT_EQ(bare.code, 0) << bare.err;
  EXPECT_EQ(lookup_mismatches(stats_of(bare.dir)), 30u);

  // --prepare-only: seeded and ended (each node's DONE says how many); a later replay of the
  // same namespace finds them.
  const RunResult only =
      l2_run(args("only", {"--local", "3", "--shard", "source", "--prepare-only"}), "prep_only");
  ASSERT_EQ(only.code, 0) << only.err;
  EXPECT_FALSE(std::filesystem::exists(only.dir + "/l2_replay_stats.json"));
  const nlohmann::json only_manifest =
      nlohmann::json::parse(read_file(only.dir + "/l2_prepare_manifest.json"));
  EXPECT_EQ(only_manifest["prepared_objects"], 60);
  ASSERT_EQ(only_manifest["nodes"].size(), 3u);  // one file: node 0 seeds all, the others none
  EXPECT_EQ(only_manifest["nodes"][0]["prepared_objects"], 60);
  const RunResult after = l2_run(args("only", {"--local", "3", "--shard", "key"}), "prep_after");
  ASSERT_EQ(after.code, 0) << after.err;
  EXPECT_EQ(lookup_mismatches(stats_of(after.dir)), 0u);
}

// Workers send PROGRESS for an L2 replay (operations issued, the share finished): a paced ~3-s
// run's line shows a real fraction, not 0 % until the end.
TEST(L2Fleet, TheProgressLineShowsTheWorkersShareFinished) {
  L2TraceBuilder b;
  int64_t task = 1;
  for (int i = 0; i < 60; ++i) {
    b.at(1.0 + 0.05 * i);
    const int64_t st = task++, lk = task++;
    b.store(st, {key(i)}).store_done(st);
    b.lookup(700 + i, lk, {key(i)}).lookup_done(700 + i, lk, {0});
  }
  const std::string path = b.end().write("progress");
  const RunResult r = l2_run({path, "--local", "2", "--shard", "key", "--speed", "1", "--progress",
                              "always", "--l2-adapter", kMock},
                             "progress_line");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("[^0-9][1-9][0-9]?% \\| [1-9][0-9]* records")))
      << r.err;
}

TEST(L2Fleet, SourceShardingAndSeveralFilesAreForL2FleetsOnly) {
  const std::string storage = synthetic_trace("l2fleet_storage", 20);
  const RunResult s = l2_run({storage, "--local", "2", "--shard", "source"}, "storage_source");
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.err.find("--shard source applies to L2 adapter-level traces only"), std::string::npos)
      << s.err;
  const RunResult e =
      l2_run({crossing_trace(), crossing_trace(), "--l2-adapter", kMock}, "embedded_two_files");
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.err.find("more than one trace file"), std::string::npos) << e.err;
}

}  // namespace
}  // namespace fleet::test
