#include "fleet/insight/report/contention_sweep.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fleet/insight/report/contention.h"
#include "fleet/stats/py_format.h"
#include "fleet/summary/run_summary_json.h"
#include "fleet/util/exit_codes.h"
#include "fleet/util/json_file.h"
#include "fleet/util/pyjson.h"
#include "fleet/util/status.h"

namespace fleet::report {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

Result<std::string> read_text(const std::filesystem::path& path) {
  // Redis's INFO commandstats is a few KB: a FIFO or /dev/zero there is refused unopened.
  if (Status s = util::check_regular_file(path.string(), 16u << 20); !s) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path.string() + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixed_or_na(const std::optional<double>& v, int decimals = 1) {
  return v ? stats::py_fixed(*v, decimals) : "n/a";
}

std::string percent_or_na(const std::optional<double>& v) {
  return v ? stats::py_fixed(*v * 100.0, 1) + "%" : "n/a";
}

std::string ratio(int64_t a, int64_t b) { return std::to_string(a) + "/" + std::to_string(b); }

ordered_json nullable(const std::optional<double>& v) { return v ? ordered_json(*v) : nullptr; }

using Table = std::vector<std::vector<std::string>>;

std::vector<size_t> column_widths(const Table& t) {
  std::vector<size_t> w(t.front().size(), 0);
  for (const auto& row : t) {
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  }
  return w;
}

std::string aligned(const std::vector<std::string>& row, const std::vector<size_t>& widths) {
  std::string line;
  for (size_t i = 0; i < row.size(); ++i) {
    if (i) line += "  ";
    line += std::string(widths[i] - row[i].size(), ' ') + row[i];
  }
  return line;
}

// "N=DIR" with N a fleet size >= 1.
Result<std::pair<int, std::string>> parse_run(const std::string& arg) {
  const size_t eq = arg.find('=');
  const std::string n = arg.substr(0, eq == std::string::npos ? 0 : eq);
  const bool digits = !n.empty() && n.size() < 7 && n.find_first_not_of("0123456789") == n.npos;
  if (!digits || std::stoi(n) < 1 || eq + 1 >= arg.size()) {
    return Status::error("bad run argument '" + arg + "' (expected N=DIR, N a fleet size >= 1)");
  }
  return std::pair{std::stoi(n), arg.substr(eq + 1)};
}

// Every N=DIR argument's row, or the first argument or run that cannot give one.
Result<std::vector<SweepRow>> load_sweep_rows(const std::vector<std::string>& runs) {
  std::vector<SweepRow> rows;
  for (const auto& arg : runs) {
    Result<std::pair<int, std::string>> run = parse_run(arg);
    if (!run) return run.status();
    Result<SweepRow> row = load_sweep_row(run->first, run->second);
    if (!row) return row.status();
    rows.push_back(std::move(row).value());
  }
  return rows;
}

}  // namespace

Result<SweepRow> sweep_row(int n, const summary::RunSummary& summary) {
  if (!summary.contention || summary.contention->per_op.empty()) {
    return Status::error(
        "no \"contention\" per-op L2 latency (did every node run with an L2 adapter?)");
  }
  const summary::ContentionSummary& cont = *summary.contention;
  SweepRow row;
  row.n = n;
  row.nodes = static_cast<int>(summary.nodes.size());
  for (const auto& node : summary.nodes) row.nodes_ok += node.status == "ok" ? 1 : 0;
  row.duration_s = summary.duration_s;
  for (const auto& node : summary.nodes)
    row.node_ops.push_back(cont.node_ops(node.name).value_or(0));
  for (const auto& [kind, op] : cont.per_op) row.l2_ops += static_cast<int64_t>(op.n);
  row.fairness = cont.fairness;
  if (!row.fairness) {
    const double f = jain_index(row.node_ops);
    if (f >= 0) row.fairness = f;
  }
  for (size_t i = 0; i < kSweepOps.size(); ++i) {
    const auto it = cont.per_op.find(kSweepOps[i]);
    if (it == cont.per_op.end()) continue;  // the run did no such operation
    const auto& op = it->second;
    row.ops[i] = {op.p50_us, op.p99_us, static_cast<int64_t>(op.n)};
  }
  if (row.duration_s > 0) row.l2_ops_per_s = static_cast<double>(row.l2_ops) / row.duration_s;
  row.lateness_p99_us = summary.lateness.p99;
  for (const auto& node : summary.nodes) {
    const summary::CounterView& c = node.counter;
    row.l1_hit_keys += c.prefetch_l1_hit_keys;
    row.l1_miss_keys += c.prefetch_l1_miss_keys;
    row.l2_lookup_keys += c.l2_lookup_keys;
    row.l2_found_keys += c.l2_lookup_found_keys;
    row.l2_store_failed += c.l2_store_failed_tasks;
  }
  if (summary.cache) {
    row.l1_hit_rate = summary.cache->lookup.l1_hit_rate;
    row.l1_l2_hit_rate = summary.cache->lookup.l1_l2_hit_rate;
  }
  return row;
}

Result<std::map<std::string, RedisCommandStat>> parse_redis_commandstats(const std::string& text) {
  // The script's own housekeeping, not the adapter's traffic.
  static const std::set<std::string> kSkip = {"info", "flushall", "config",
                                              "ping", "dbsize",   "command"};
  std::map<std::string, RedisCommandStat> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (line.rfind("cmdstat_", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) return Status::error("bad line '" + line + "'");
    const std::string name = line.substr(8, colon - 8);
    RedisCommandStat st;
    std::istringstream fields(line.substr(colon + 1));
    for (std::string kv; std::getline(fields, kv, ',');) {
      const size_t eq = kv.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
      if (key != "calls" && key != "usec_per_call") continue;
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      // A count or time that is not a finite, non-negative number is a damaged line (NaN made
      // calls INT64_MIN, and inf an "Infinity" no JSON reader takes).
      if (value.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || v > 9e18)
        return Status::error("bad line '" + line.substr(0, 200) + "'");
      if (key == "calls") st.calls = static_cast<int64_t>(v);
      if (key == "usec_per_call") st.usec_per_call = v;
    }
    if (!kSkip.count(name.substr(0, name.find('|')))) out[name] = st;
  }
  return out;
}

Result<SweepRow> load_sweep_row(int n, const std::string& dir) {
  const std::filesystem::path summary_path = std::filesystem::path(dir) / "fleet_summary.json";
  Result<summary::RunSummary> summary = summary::read_run_summary(dir);
  if (!summary) return summary.status();  // names the file
  Result<SweepRow> row = sweep_row(n, summary.value());
  if (!row) return Status::error(summary_path.string() + ": " + row.status().message());
  const std::filesystem::path redis_path = std::filesystem::path(dir) / "redis_commandstats.txt";
  std::error_code ec;
  if (std::filesystem::exists(redis_path, ec)) {
    Result<std::string> text = read_text(redis_path);
    if (!text) return text.status();
    auto redis = parse_redis_commandstats(text.value());
    if (!redis) return Status::error(redis_path.string() + ": " + redis.status().message());
    row->redis = std::move(redis).value();
  }
  return row;
}

std::string render_sweep_table(const std::vector<SweepRow>& rows) {
  Table t = {{"N", "nodes", "L2 ops", "L2 ops/s", "store p50/p99 us", "lookup p50/p99 us",
              "load p50/p99 us", "fairness", "late p99 us", "L1 hit/miss keys",
              "L2 found/lookup keys", "hit L1/L1+L2"}};
  for (const auto& r : rows) {
    std::vector<std::string> cells = {std::to_string(r.n), ratio(r.nodes_ok, r.n),
                                      std::to_string(r.l2_ops), fixed_or_na(r.l2_ops_per_s)};
    for (const auto& op : r.ops)
      cells.push_back(fixed_or_na(op.p50_us) + "/" + fixed_or_na(op.p99_us));
    cells.push_back(fixed_or_na(r.fairness, 3));
    cells.push_back(fixed_or_na(r.lateness_p99_us));
    cells.push_back(ratio(r.l1_hit_keys, r.l1_miss_keys));
    cells.push_back(ratio(r.l2_found_keys, r.l2_lookup_keys));
    cells.push_back(percent_or_na(r.l1_hit_rate) + "/" + percent_or_na(r.l1_l2_hit_rate));
    t.push_back(std::move(cells));
  }
  const std::vector<size_t> w = column_widths(t);
  std::vector<std::string> rule;
  for (size_t width : w) rule.push_back(std::string(width, '-'));
  std::string out = aligned(t[0], w) + "\n" + aligned(rule, w);
  for (size_t i = 1; i < t.size(); ++i) out += "\n" + aligned(t[i], w);
  return out;
}

std::string render_redis_table(const std::vector<SweepRow>& rows) {
  std::set<std::string> cmds;
  for (const auto& r : rows) {
    for (const auto& [name, st] : r.redis) cmds.insert(name);
  }
  if (cmds.empty()) return "";
  Table t = {{"N"}};
  for (const auto& c : cmds) {
    std::string upper = c;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    t[0].push_back(upper + " calls / us per call");
  }
  for (const auto& r : rows) {
    std::vector<std::string> cells = {std::to_string(r.n)};
    for (const auto& c : cmds) {
      auto it = r.redis.find(c);
      cells.push_back(it == r.redis.end() ? "-"
                                          : std::to_string(it->second.calls) + " / " +
                                                stats::py_fixed(it->second.usec_per_call, 1));
    }
    t.push_back(std::move(cells));
  }
  const std::vector<size_t> w = column_widths(t);
  std::string out = "Redis server side (INFO commandstats: mean time inside Redis per command):";
  for (const auto& row : t) out += "\n" + aligned(row, w);
  return out;
}

ordered_json sweep_json(const std::vector<SweepRow>& rows) {
  ordered_json out = ordered_json::array();
  for (const auto& r : rows) {
    ordered_json j;
    j["n"] = r.n;
    j["nodes_ok"] = r.nodes_ok;
    j["nodes"] = r.nodes;
    j["duration_s"] = r.duration_s;
    j["latency_source"] = "contention";  // kept for readers of older contention.json files
    j["l2_ops"] = r.l2_ops;
    j["fairness"] = nullable(r.fairness);
    for (size_t i = 0; i < kSweepOps.size(); ++i) {
      const std::string op = kSweepOps[i];
      j[op + "_p50_us"] = nullable(r.ops[i].p50_us);
      j[op + "_p99_us"] = nullable(r.ops[i].p99_us);
      j[op + "_n"] = r.ops[i].n;
    }
    j["node_ops"] = r.node_ops;
    j["l2_ops_per_s"] = nullable(r.l2_ops_per_s);
    j["lateness_p99_us"] = nullable(r.lateness_p99_us);
    j["l1_hit_keys"] = r.l1_hit_keys;
    j["l1_miss_keys"] = r.l1_miss_keys;
    j["l2_lookup_keys"] = r.l2_lookup_keys;
    j["l2_found_keys"] = r.l2_found_keys;
    j["l2_store_failed"] = r.l2_store_failed;
    j["l1_hit_rate"] = nullable(r.l1_hit_rate);
    j["l1_l2_hit_rate"] = nullable(r.l1_l2_hit_rate);
    ordered_json redis = ordered_json::object();
    for (const auto& [name, st] : r.redis) redis[name] = {st.calls, st.usec_per_call};
    j["redis"] = std::move(redis);
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<std::string> check_sweep(const std::vector<SweepRow>& rows) {
  std::vector<std::string> problems;
  for (const auto& r : rows) {
    const std::string at = "N=" + std::to_string(r.n) + ": ";
    if (r.nodes_ok != r.n || r.nodes != r.n) {
      problems.push_back(at + std::to_string(r.nodes_ok) + " of " + std::to_string(r.n) +
                         " nodes reported ok");
    }
    if (r.l2_ops <= 0) problems.push_back(at + "no L2 operations");
    bool idle = false;
    std::string ops = "[";
    for (double x : r.node_ops) {
      idle |= x <= 0;
      ops += (ops.size() > 1 ? ", " : "") + util::py_float_repr(x);
    }
    if (idle) problems.push_back(at + "a node did no L2 operations: " + ops + "]");
    if (!r.fairness || !(*r.fairness > 0 && *r.fairness <= 1 + 1e-9)) {
      problems.push_back(at + "fairness " +
                         (r.fairness ? util::py_float_repr(*r.fairness) : "n/a") +
                         " not in (0, 1]");
    }
  }
  return problems;
}

int contention_sweep_command(const std::vector<std::string>& runs, const std::string& json_out,
                             bool check) {
  Result<std::vector<SweepRow>> loaded = load_sweep_rows(runs);
  if (!loaded) {
    spdlog::error("report --contention: {}", loaded.status().message());
    return exit_status(ExitCode::kBadInput);
  }
  const std::vector<SweepRow>& rows = loaded.value();
  std::printf("%s\n", render_sweep_table(rows).c_str());
  const std::string redis = render_redis_table(rows);
  if (!redis.empty()) std::printf("\n%s\n", redis.c_str());
  if (!json_out.empty()) {
    std::ofstream out(json_out, std::ios::binary | std::ios::trunc);
    out << util::py_json_dumps_indent(sweep_json(rows), 1) << "\n";
    out.close();
    if (!out) {
      spdlog::error("report --contention: cannot write {}", json_out);
      return exit_status(ExitCode::kBadInput);
    }
  }
  if (!check) return 0;
  const std::vector<std::string> problems = check_sweep(rows);
  std::fflush(stdout);  // the table first, then what is wrong with it
  for (const auto& p : problems) std::fprintf(stderr, "CHECK FAILED: %s\n", p.c_str());
  if (!problems.empty()) return exit_status(ExitCode::kRecordsFailed);
  std::printf("check: every node reported, L2 ops > 0, fairness in (0, 1]\n");
  return 0;
}

}  // namespace fleet::report
