// The L2 contention sweep (docs/contention.md): one row per fleet size N, read back from each
// run's fleet_summary.json (+ redis_commandstats.txt), so scripts/l2-contention.sh prints its
// table through the same report code that writes every other result.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/summary/run_summary.h"
#include "fleet/util/status.h"

namespace fleet::report {

// The L2 operations the table has columns for, in column order.
inline constexpr std::array<const char*, 3> kSweepOps = {"store", "lookup", "load"};

struct RedisCommandStat {
  int64_t calls = 0;
  double usec_per_call = 0;
};

struct SweepRow {
  struct Op {
    std::optional<double> p50_us, p99_us;  // nullopt: the run did no such operation
    int64_t n = 0;
  };
  int n = 0;         // fleet size asked for
  int nodes_ok = 0;  // nodes with status "ok"
  int nodes = 0;     // nodes in the summary
  double duration_s = 0;
  int64_t l2_ops = 0;
  std::optional<double> fairness;  // Jain's index over node_ops; nullopt when undefined
  std::array<Op, kSweepOps.size()> ops;
  std::vector<double> node_ops;  // per node, in the summary's node order
  std::optional<double> l2_ops_per_s, lateness_p99_us;
  int64_t l1_hit_keys = 0, l1_miss_keys = 0, l2_lookup_keys = 0, l2_found_keys = 0,
          l2_store_failed = 0;
  std::optional<double> l1_hit_rate, l1_l2_hit_rate;  // cache.lookup, merged over nodes
  std::map<std::string, RedisCommandStat> redis;      // by command, housekeeping left out
};

// The row for fleet size `n` from a run's summary; an error when the summary has no
// "contention" per-op object (the run measured no L2 operation).
Result<SweepRow> sweep_row(int n, const summary::RunSummary& summary);

// INFO commandstats text -> calls and mean usec per command, without the commands the script
// itself sends (INFO, FLUSHALL, CONFIG, PING, ...); an error quoting the first bad line.
Result<std::map<std::string, RedisCommandStat>> parse_redis_commandstats(const std::string& text);

// DIR/fleet_summary.json and, when present, DIR/redis_commandstats.txt; an error names the file.
Result<SweepRow> load_sweep_row(int n, const std::string& dir);

// The main table: right-aligned columns, two spaces apart, a dashed rule under the header.
std::string render_sweep_table(const std::vector<SweepRow>& rows);
// The Redis server-side table; empty when no run saved commandstats.
std::string render_redis_table(const std::vector<SweepRow>& rows);
// contention.json: an array of row objects (null for what a run did not report).
nlohmann::ordered_json sweep_json(const std::vector<SweepRow>& rows);
// --check: every node reported ok and did L2 operations, fairness in (0, 1]. One message per
// problem, empty when sane.
std::vector<std::string> check_sweep(const std::vector<SweepRow>& rows);

// `coordinator report --contention [--json OUT] [--check] N=DIR...`: prints both tables.
// Returns 0, 1 when --check finds a problem, 2 on a bad argument or unreadable run.
int contention_sweep_command(const std::vector<std::string>& runs, const std::string& json_out,
                             bool check);

}  // namespace fleet::report
