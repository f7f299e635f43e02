// Native engine throughput: reserve+finish cycles and prefetch-hit cycles (mock L2, virtual
// clock, one core), and the resp adapter against a local redis-server if one is installed.
// Usage: engine_bench [--keys N] [--batch B] [--payload BYTES] [--resp-ops N] [--no-resp]
#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fleet/engine/counters_json.h"
#include "fleet/engine/engine_config_json.h"
#include "fleet/engine/storage_manager.h"

extern char** environ;

using namespace fleet;
using namespace fleet::storage;
using Clk = std::chrono::steady_clock;

namespace {

double secs(Clk::time_point a, Clk::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds of this thread: on a shared machine, ops per CPU-second is the fair figure.
double thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

trace::ObjectKey key(uint64_t i) {
  trace::ObjectKey k;
  k.chunk_hash.assign(reinterpret_cast<const char*>(&i), sizeof(i));
  k.chunk_hash.append(24, '\x5a');  // 32-byte chunk hashes, as LMCache's
  k.model_name = "meta-llama/Llama-3.1-8B";
  return k;
}

trace::MemoryLayout layout_bytes(int64_t bytes) {
  trace::MemoryLayout l;
  l.shapes = {{bytes / 2}};
  l.dtypes = {trace::DType::Float16};
  return l;
}

EngineConfig base_config(uint64_t l1_bytes) {
  EngineConfig c;
  c.l1_size_in_bytes = l1_bytes;
  c.l1_use_lazy = false;
  add_l2_adapter(c, {{"type", "mock"}, {"max_size_gb", 64.0}, {"mock_bandwidth_gb", 100.0}});
  return c;
}

// Keys 0..n_keys-1 in calls of `batch` keys.
std::vector<std::vector<trace::ObjectKey>> key_batches(size_t n_keys, size_t batch) {
  std::vector<std::vector<trace::ObjectKey>> batches;
  for (size_t i = 0; i < n_keys; i += batch) {
    std::vector<trace::ObjectKey> b;
    for (size_t j = i; j < i + batch && j < n_keys; ++j) b.push_back(key(j));
    batches.push_back(std::move(b));
  }
  return batches;
}

// The engine a bench config builds; a refused one ends the bench, saying why.
std::unique_ptr<StorageManager> open_engine(const EngineConfig& cfg, util::Clock& clock) {
  Result<std::unique_ptr<StorageManager>> sm = StorageManager::open(cfg, clock);
  if (!sm) {
    std::fprintf(stderr, "engine: %s\n", sm.status().message().c_str());
    std::exit(2);
  }
  return std::move(sm).value();
}

void bench_reserve_finish(size_t n_keys, size_t batch, bool with_l2) {
  util::VirtualClock clock;
  // 4 KiB objects, L1 of 64 Ki objects: eviction ticks keep it below the watermark.
  EngineConfig cfg = base_config(256ull << 20);
  if (!with_l2) cfg.l2_adapters.clear();
  auto opened = open_engine(cfg, clock);
  StorageManager& sm = *opened;
  const trace::MemoryLayout lay = layout_bytes(4096);
  const auto batches = key_batches(n_keys, batch);
  auto t0 = Clk::now();
  const double c0 = thread_cpu();
  size_t key_ops = 0, calls = 0;
  for (size_t i = 0; i < batches.size(); ++i) {
    sm.reserve_write(batches[i], lay, trace::WriteMode::New);
    sm.finish_write(batches[i]);
    key_ops += 2 * batches[i].size();
    calls += 2;
    // 125 us of virtual time per key: ~8k keys/s, which the default 1 Hz / 20 % eviction of a
    // 64 Ki-object L1 keeps up with, so the run measures writes rather than the OOM fast path.
    clock.advance_by(static_cast<int64_t>(batches[i].size()) * 125'000);
    sm.run_until(clock.now_ns());  // store controller, mock completions, eviction ticks
  }
  auto t1 = Clk::now();
  const double cpu = thread_cpu() - c0;
  auto c = fleet::engine::to_json(sm.counters());
  std::printf(
      "reserve+finish (%s, batch %zu): %zu key ops in %.3f s wall / %.3f s CPU = %.2f M key "
      "ops/s wall, %.2f M per CPU-s (%.0f calls/s); stored %s keys, evicted %s, OOM keys %s\n",
      with_l2 ? "L1 + store to mock L2" : "L1 only", batch, key_ops, secs(t0, t1), cpu,
      key_ops / secs(t0, t1) / 1e6, key_ops / cpu / 1e6, calls / secs(t0, t1),
      c["l2_store_keys_submitted"].dump().c_str(), c["l1_evicted_keys"].dump().c_str(),
      c["reserve_write_oom_keys"].dump().c_str());
}

void bench_prefetch_hits(size_t n_keys, size_t batch, bool from_l2) {
  util::VirtualClock clock;
  auto opened = open_engine(base_config(1ull << 30), clock);
  StorageManager& sm = *opened;
  const trace::MemoryLayout lay = layout_bytes(4096);
  const auto batches = key_batches(n_keys, batch);
  for (auto& b : batches) {
    sm.reserve_write_keys(b, lay, trace::WriteMode::New);
    sm.finish_write_keys(b);
  }
  clock.advance_by(1'000'000'000);
  sm.run_until(clock.now_ns());
  if (from_l2)
    for (auto& b : batches) sm.delete_l1_keys(b);
  trace::PrefetchSpec spec;
  spec.group_layouts[0] = lay;
  auto t0 = Clk::now();
  const double c0 = thread_cpu();
  size_t key_ops = 0;
  for (size_t i = 0; i < batches.size(); ++i) {
    spec.keys = batches[i];
    sm.submit_prefetch(spec, "", false);
    if (from_l2) {
      clock.advance_by(1'000'000);
      sm.run_until(clock.now_ns());  // lookup, reserve, load, admit
    }
    engine::ReadContext ctx;
    sm.read_enter(batches[i], ctx);
    sm.read_exit(ctx);
    sm.finish_read(batches[i], 1);
    key_ops += 4 * batches[i].size();
  }
  auto t1 = Clk::now();
  const double cpu = thread_cpu() - c0;
  auto c = fleet::engine::to_json(sm.counters());
  std::printf(
      "prefetch-hit cycles from %s (submit+enter+exit+finish_read, batch %zu): %zu key ops in "
      "%.3f s wall / %.3f s CPU = %.2f M key ops/s wall, %.2f M per CPU-s; L1 hit keys %s, L2 "
      "loaded keys %s, all-good reads %s\n",
      from_l2 ? "L2 (mock)" : "L1", batch, key_ops, secs(t0, t1), cpu, key_ops / secs(t0, t1) / 1e6,
      key_ops / cpu / 1e6, c["prefetch_l1_hit_keys"].dump().c_str(),
      c["l2_loaded_keys"].dump().c_str(), c["read_enter_all_good"].dump().c_str());
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int p = ntohs(a.sin_port);
  ::close(fd);
  return p;
}

void bench_resp(size_t ops, size_t payload) {
  const char* bin = "/usr/bin/redis-server";
  if (::access(bin, X_OK) != 0) {
    std::printf("resp: redis-server not found, skipped\n");
    return;
  }
  const int port = free_port();
  std::vector<std::string> args = {bin,      "--port", std::to_string(port), "--bind", "127.0.0.1",
                                   "--save", "",       "--appendonly",       "no"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, bin, nullptr, nullptr, argv.data(), environ) != 0) return;
  for (int i = 0; i < 200; ++i) {
    redisContext* c = redisConnect("127.0.0.1", port);
    bool up = c && !c->err;
    if (c) redisFree(c);
    if (up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EngineConfig cfg;
  cfg.l1_size_in_bytes = 8ull << 30;
  cfg.l1_use_lazy = false;
  add_l2_adapter(cfg,
                 {{"type", "resp"}, {"host", "127.0.0.1"}, {"port", port}, {"num_workers", 8}});
  const trace::MemoryLayout lay = layout_bytes(static_cast<int64_t>(payload));
  const size_t batch = 16;
  {
    auto opened = open_engine(cfg, util::RealClock::instance());
    StorageManager& sm = *opened;
    auto t0 = Clk::now();
    for (size_t i = 0; i < ops; i += batch) {
      std::vector<trace::ObjectKey> b;
      for (size_t j = i; j < i + batch && j < ops; ++j) b.push_back(key(j));
      sm.reserve_write(b, lay, trace::WriteMode::New);
      sm.finish_write(b);
    }
    sm.close(true);
    auto t1 = Clk::now();
    auto c = fleet::engine::to_json(sm.counters());
    const double s = secs(t0, t1);
    std::printf(
        "resp SET via engine: %s keys, %s bytes in %.3f s = %.0f ops/s, %.1f MB/s "
        "(payload %zu B, 8 workers, %s tasks)\n",
        c["l2_store_keys_submitted"].dump().c_str(), c["l2_store_bytes"].dump().c_str(), s, ops / s,
        c["l2_store_bytes"].get<double>() / s / 1e6, payload, c["l2_store_tasks"].dump().c_str());
  }
  {
    cfg.l2_prefetch_max_in_flight = 8;
    auto opened = open_engine(cfg, util::RealClock::instance());
    StorageManager& sm = *opened;
    trace::PrefetchSpec spec;
    spec.group_layouts[0] = lay;
    auto t0 = Clk::now();
    for (size_t i = 0; i < ops; i += batch) {
      spec.keys.clear();
      for (size_t j = i; j < i + batch && j < ops; ++j) spec.keys.push_back(key(j));
      sm.submit_prefetch(spec, "", false);
    }
    // Wait for the controller to finish every request.
    for (int i = 0; i < 60000; ++i) {
      auto c = fleet::engine::to_json(sm.counters());
      if (c["l2_prefetch_requests_finished"] == c["prefetch_l2_submitted_requests"]) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    auto t1 = Clk::now();
    auto c = fleet::engine::to_json(sm.counters());
    const double s = secs(t0, t1);
    std::printf(
        "resp EXISTS+GET via engine prefetch: %s keys loaded, %s bytes in %.3f s = "
        "%.0f keys/s, %.1f MB/s\n",
        c["l2_loaded_keys"].dump().c_str(), c["l2_load_bytes"].dump().c_str(), s,
        c["l2_loaded_keys"].get<double>() / s, c["l2_load_bytes"].get<double>() / s / 1e6);
    sm.close(false);
  }
  // Same shape as the engine's traffic: `ops` distinct keys (-r), on an emptied server.
  if (redisContext* rc = redisConnect("127.0.0.1", port); rc && !rc->err) {
    freeReplyObject(redisCommand(rc, "FLUSHALL"));
    redisFree(rc);
  }
  char cmd[256];
  std::snprintf(cmd, sizeof(cmd),
                "redis-benchmark -h 127.0.0.1 -p %d -t set,get -d %zu -n %zu -r %zu -c 8 -P 16 -q",
                port, payload, ops, ops);
  std::printf("compare with: %s\n", cmd);
  if (::access("/usr/bin/redis-benchmark", X_OK) == 0) {
    std::fflush(stdout);
    if (std::system(cmd) != 0) std::printf("(redis-benchmark failed)\n");
  }
  ::kill(pid, SIGTERM);
  int st = 0;
  ::waitpid(pid, &st, 0);
}

}  // namespace

int main(int argc, char** argv) {
  size_t keys = 1'000'000, batch = 16, payload = 65536, resp_ops = 20000;
  bool resp = true;
  std::string only;  // --only write|write-l2|read: one family of cycles (profiling one path)
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::strtoull(argv[++i], nullptr, 10) : 0ull; };
    if (a == "--keys")
      keys = next();
    else if (a == "--batch")
      batch = next();
    else if (a == "--payload")
      payload = next();
    else if (a == "--resp-ops")
      resp_ops = next();
    else if (a == "--no-resp")
      resp = false;
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--keys N] [--batch B] [--payload BYTES] [--resp-ops N] "
                   "[--no-resp] [--only write|write-l2|read]\n",
                   argv[0]);
      return 2;
    }
  }
  if (only.empty() || only == "write") bench_reserve_finish(keys, batch, false);
  if (only.empty() || only == "write" || only == "write-l2") {
    bench_reserve_finish(keys, batch, true);
    bench_reserve_finish(keys / 4, 1, true);
  }
  if (only.empty() || only == "read") {
    bench_prefetch_hits(keys / 4, batch, false);
    bench_prefetch_hits(keys / 8, batch, true);
  }
  if (resp && only.empty()) bench_resp(resp_ops, payload);
  return 0;
}
