// Fleet benchmark helper (driven by bench/fleet_bench.sh, figures in docs/benchmarks.md):
//   fleet_bench gen PATH RECORDS [MAX_CONTEXT_TOKENS]
//       writes a deterministic era-3 synthetic trace (fewer context tokens = fewer keys per
//       record = smaller records)
//   fleet_bench merge [NODES] [SAMPLES]
//       times what the coordinator does with DONE messages: decode_node_result + add_nodes for
//       NODES synthetic NodeResults of SAMPLES latency samples each, then the merged summary.
//   fleet_bench faults [MB]
//       what a first touch of fresh memory costs on this machine: MB of anonymous memory
//       touched once per 4 KiB page, then the same with MADV_HUGEPAGE (2 MiB pages where the
//       kernel grants them). On the VMs measured, 4 KiB faults cost ~14 us each: why the
//       run's large end-of-run arrays use util/huge_page_allocator.h.
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fleet/summary/run_report.h"
#include "fleet/trace/synthetic_trace.h"
#include "fleet/wire/node_result.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

int gen(const char* path, uint64_t records, int max_context_tokens) {
  fleet::trace::SyntheticOptions o;
  o.seed = 11;
  o.records = records;
  o.rate = 200.0;
  o.duration_s = 1e9;
  o.max_context_tokens = max_context_tokens;
  auto s = fleet::trace::write_synthetic_trace(path, o);
  std::printf("wrote %s: %llu records, %llu bytes\n", path,
              static_cast<unsigned long long>(s.records), static_cast<unsigned long long>(s.bytes));
  return 0;
}

int merge(int nodes, int samples) {
  const char* ops[] = {
      "lmcache.v1.distributed.storage_manager.StorageManager.reserve_write",
      "lmcache.v1.distributed.storage_manager.StorageManager.finish_write",
      "lmcache.v1.distributed.storage_manager.StorageManager.submit_prefetch_task",
      "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__enter__",
      "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__exit__",
      "lmcache.v1.distributed.storage_manager.StorageManager.finish_read_prefetched"};
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> lat(-3.0, 1.2);
  // Each DONE result stays alive as the coordinator keeps a received message: the decoded
  // nodes' samples are read where they lie.
  std::vector<std::shared_ptr<const std::string>> payloads;
  size_t bytes = 0;
  for (int n = 0; n < nodes; ++n) {
    fleet::wire::NodeResult r;
    r.name = "node-" + std::to_string(n);
    for (int i = 0; i < samples; ++i) r.stats.record(ops[i % 6], lat(rng), false);
    r.total = r.replayed = static_cast<uint64_t>(samples);
    payloads.push_back(std::make_shared<const std::string>(fleet::wire::encode_node_result(r)));
    bytes += payloads.back()->size();
  }
  const int reps = 5;
  double best_decode = 1e300, best_merge = 1e300, best_summary = 1e300;
  for (int rep = 0; rep < reps; ++rep) {
    auto t = Clock::now();
    std::vector<fleet::wire::NodeResult> decoded;
    for (const auto& p : payloads) decoded.push_back(fleet::wire::decode_node_result(*p, p));
    double d = ms_since(t);
    t = Clock::now();
    fleet::report::RunReport report;
    fleet::report::add_nodes(report, std::move(decoded));
    double m = ms_since(t);
    t = Clock::now();
    auto summary = report.stats.summary();
    double s = ms_since(t);
    if (summary.size() != 6) std::abort();
    best_decode = std::min(best_decode, d);
    best_merge = std::min(best_merge, m);
    best_summary = std::min(best_summary, s);
  }
  std::printf(
      "merge: %d nodes x %d samples (%zu DONE bytes): decode %.1f ms, add_nodes %.1f ms, "
      "summary %.1f ms, total %.1f ms (best of %d)\n",
      nodes, samples, bytes, best_decode, best_merge, best_summary,
      best_decode + best_merge + best_summary, reps);
  return 0;
}

int faults(std::size_t mb) {
  const std::size_t bytes = mb << 20, huge = std::size_t{2} << 20;
  for (bool advise : {false, true}) {
    void* raw =
        ::mmap(nullptr, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return 1;
    auto* p =
        reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw) + huge - 1) & ~(huge - 1));
    if (advise) ::madvise(p, bytes, MADV_HUGEPAGE);
    const auto t = Clock::now();
    for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 1;
    const double ms = ms_since(t);
    std::printf("faults: %zu MB %s: %.1f ms, %.2f us per 4 KiB page\n", mb,
                advise ? "with MADV_HUGEPAGE" : "in 4 KiB pages", ms,
                ms * 1e3 / static_cast<double>(bytes / 4096));
    ::munmap(raw, bytes + huge);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "gen" && (argc == 4 || argc == 5)) {
    return gen(argv[2], std::strtoull(argv[3], nullptr, 10),
               argc == 5 ? std::atoi(argv[4]) : 32768);
  }
  if (cmd == "merge") {
    return merge(argc > 2 ? std::atoi(argv[2]) : 4, argc > 3 ? std::atoi(argv[3]) : 100000);
  }
  if (cmd == "faults") return faults(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 256);
  std::fprintf(stderr,
               "usage: fleet_bench gen PATH RECORDS | fleet_bench merge [NODES] [SAMPLES] | "
               "fleet_bench faults [MB]\n");
  return 2;
}
