#include "fleet/coordinator/cli/compare_command.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "fleet/flags/parse_errors.h"
#include "fleet/flags/range_checks.h"
#include "fleet/insight/compare/compare_outputs.h"
#include "fleet/insight/compare/comparison.h"
#include "fleet/insight/compare/l2_comparison.h"
#include "fleet/insight/compare/l2_threshold.h"
#include "fleet/insight/compare/run_snapshot.h"
#include "fleet/insight/compare/threshold.h"
#include "fleet/util/exit_codes.h"
#include "fleet/util/output_file.h"

namespace fleet::compare {

namespace {

struct CompareOptions {
  std::string run_a, run_b;
  std::string output_dir = ".";
  std::string json_path, html_path;  // "" = <output-dir>/compare.json, compare.html
  bool no_html = false;
  bool quiet = false;
  bool strict = false;
  std::vector<std::string> fail_on;
  BootstrapOptions bootstrap;
};

void declare(CLI::App& app, CompareOptions& o) {
  app.add_option("RUN_A", o.run_a, "The baseline run's --output-dir (fleet_summary.json)")
      ->required();
  app.add_option("RUN_B", o.run_b, "The run compared with it")->required();
  app.add_option("--output-dir", o.output_dir, "Where compare.json and compare.html go")
      ->capture_default_str();
  app.add_option("--json", o.json_path, "Write compare.json here instead");
  app.add_option("--html", o.html_path, "Write compare.html here instead");
  app.add_flag("--no-html", o.no_html, "Skip compare.html");
  app.add_flag("-q,--quiet", o.quiet, "No table on stdout (files and threshold results still)");
  app.add_option("--fail-on", o.fail_on,
                 "Exit 4 when METRIC OP VALUE holds, e.g. 'finish_write.p99 > +10%', "
                 "'cache.l1_hit_rate < -0.02', 'failed > 0' (repeatable; docs/compare.md)");
  app.add_flag("--strict", o.strict,
               "Count a crossed threshold on a change even when its 95 % interval contains 0");
  app.add_option("--resamples", o.bootstrap.resamples, "Bootstrap resamples per op")
      ->check(flags::between(100, 100000))
      ->capture_default_str();
  app.add_option("--seed", o.bootstrap.seed, "Bootstrap seed (same seed, same intervals)")
      ->capture_default_str();
  app.add_option_function<double>(
         "--noise", [&o](double pct) { o.bootstrap.latency_noise = pct / 100.0; },
         "Latency changes smaller than PCT % are never significant: the run-to-run drift the "
         "intervals cannot see (default 5)")
      ->check(flags::between(0, 100));
}

ExitCode fail(const Status& s) {
  spdlog::error("{}", s.message());
  return s.code();
}

// A reader never sees half a file.
Status write_file(const std::string& path, const std::string& text) {
  return util::write_file_atomically(path, {text});
}

nlohmann::json latency_cdfs(const RunSnapshot& run) { return latency_cdfs_json(run); }

// Two L2 replays' directories: the terminal tables and compare.json (no page yet), and the
// --fail-on thresholds over the L2 metrics (l2_threshold.h): exit 4 when one is crossed.
ExitCode compare_l2(const CompareOptions& o) {
  std::vector<Threshold> thresholds;
  try {  // refused before any run is read, as for storage runs
    for (const std::string& text : o.fail_on) thresholds.push_back(parse_l2_threshold(text));
  } catch (const ThresholdError& e) {
    spdlog::error("{}", e.what());
    return ExitCode::kBadInput;
  }
  const Result<summary::L2RunStats> a = summary::read_l2_run_stats(o.run_a);
  if (!a) return fail(a.status());
  const Result<summary::L2RunStats> b = summary::read_l2_run_stats(o.run_b);
  if (!b) return fail(b.status());
  const L2Comparison c = compare_l2_runs(a.value(), b.value());
  const std::vector<ThresholdOutcome> outcomes = evaluate_l2_all(thresholds, c);
  if (!o.quiet) std::fputs(l2_terminal_table(c, outcomes).c_str(), stdout);
  std::fflush(stdout);
  namespace fs = std::filesystem;
  std::error_code ec;
  if (o.json_path.empty()) fs::create_directories(o.output_dir, ec);
  const std::string json_path =
      o.json_path.empty() ? (fs::path(o.output_dir) / "compare.json").string() : o.json_path;
  if (Status s = write_file(json_path, l2_comparison_json(c, outcomes).dump(2) + "\n"); !s)
    return fail(s);
  std::fprintf(stderr, "compare: %s\n", json_path.c_str());
  int crossed = 0;
  for (const ThresholdOutcome& t : outcomes) {
    if (!t.crossed) continue;
    ++crossed;
    spdlog::error("threshold crossed: {}", t.message);
  }
  return crossed ? ExitCode::kThresholdCrossed : ExitCode::kOk;
}

void use_stderr_logger() {
  if (!spdlog::get("coordinator")) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("coordinator"));
  }
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
}

}  // namespace

ExitCode compare_command(int argc, char** argv) {
  use_stderr_logger();
  CLI::App app("Compare two runs' output directories, A -> B (docs/compare.md)",
               "coordinator compare");
  CompareOptions o;
  declare(app, o);
  if (auto ended = flags::parse_or_exit(app, argc, argv)) return *ended;
  if (Status s = refuse_mixed_levels(o.run_a, o.run_b); !s) return fail(s);
  if (summary::is_l2_run_dir(o.run_a)) return compare_l2(o);
  std::vector<ThresholdOutcome> outcomes;
  try {
    std::vector<Threshold> thresholds;
    for (const std::string& text : o.fail_on) thresholds.push_back(parse_threshold(text));
    const RunSnapshot a = load_run(o.run_a);
    const RunSnapshot b = load_run(o.run_b);
    for (const RunSnapshot* run : {&a, &b}) {
      if (run->partial) {
        spdlog::warn("{} is a partial run ({}): compared, and marked partial", run->dir,
                     run->partial_reason);
      }
    }
    const Comparison c = compare_runs(a, b, o.bootstrap);
    outcomes = evaluate_all(thresholds, c, o.strict);
    if (!o.quiet) std::fputs(terminal_table(c, outcomes).c_str(), stdout);
    std::fflush(stdout);

    namespace fs = std::filesystem;
    const bool default_dir = o.json_path.empty() || (!o.no_html && o.html_path.empty());
    if (default_dir) fs::create_directories(o.output_dir);
    const std::string json_path =
        o.json_path.empty() ? (fs::path(o.output_dir) / "compare.json").string() : o.json_path;
    const nlohmann::json data = comparison_json(c, outcomes);
    if (Status s = write_file(json_path, data.dump(2) + "\n"); !s) {
      spdlog::error("{}", s.message());
      return s.code();
    }
    std::string written = json_path;
    if (!o.no_html) {
      const std::string html_path =
          o.html_path.empty() ? (fs::path(o.output_dir) / "compare.html").string() : o.html_path;
      const std::string page = render_compare_html(data, latency_cdfs(a), latency_cdfs(b));
      if (Status s = write_file(html_path, page); !s) {
        spdlog::error("{}", s.message());
        return s.code();
      }
      written += ", " + html_path;
    }
    std::fprintf(stderr, "compare: %s\n", written.c_str());
  } catch (const std::exception& e) {
    // RunInputError, ThresholdError and file errors all name what they are about.
    spdlog::error("{}", e.what());
    return ExitCode::kBadInput;
  }
  int crossed = 0;
  for (const ThresholdOutcome& t : outcomes) {
    if (!t.crossed) continue;
    ++crossed;
    spdlog::error("threshold crossed: {}", t.message);
  }
  return crossed ? ExitCode::kThresholdCrossed : ExitCode::kOk;
}

}  // namespace fleet::compare
