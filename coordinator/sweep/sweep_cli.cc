#include "fleet/coordinator/sweep/sweep_cli.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "fleet/coordinator/sweep/sweep_runner.h"
#include "fleet/util/json_file.h"

namespace fleet::sweep {

namespace {

// Flags the sweep itself decides for each variant, or that make no sense per variant.
const std::set<std::string>& not_sweepable() {
  static const std::set<std::string> s = {
      "sweep",           "sweep-goal", "sweep-mrc", "sweep-shared-l2",   "local",
      "workers",         "output-dir", "plan-only", "config-from-trace", "l2-key-namespace",
      "start-at-mono-ns"};
  return s;
}

Status check_mrc_file(const std::string& path) {
  const Result<nlohmann::json> read = util::read_json_file(path);
  if (!read) return Status::error("--sweep-mrc " + read.status().message());
  const nlohmann::json& j = read.value();
  if (!j.is_object() || !j.contains("curve") || !j["curve"].is_array()) {
    return Status::error("--sweep-mrc " + path + ": no \"curve\" array (not `lct mrc --json`)");
  }
  return Status();
}

}  // namespace

ExitCode run_sweep_cli(const CLI::App& app, const SweepFlags& f, const session::FleetOptions& fleet,
                       int argc, char** argv) {
  auto fail = [](const std::string& why) {
    spdlog::error("{}", why);
    return ExitCode::kBadInput;
  };
  SweepRequest r;
  for (const auto& spec : f.axes) {
    auto axis = parse_sweep_axis(spec);
    if (!axis) return fail(axis.status().message());
    if (not_sweepable().count(axis->name) || !app.get_option_no_throw("--" + axis->name)) {
      return fail("--sweep " + spec + ": '--" + axis->name + "' is not a flag a sweep can vary");
    }
    r.axes.push_back(std::move(axis).value());
  }
  if (!f.goal.empty()) {
    auto goal = parse_sweep_goal(f.goal);
    if (!goal) return fail(goal.status().message());
    r.goal = goal.value();
  }
  if (!f.mrc.empty()) {
    if (Status s = check_mrc_file(f.mrc); !s) return fail(s.message());  // before any run
  }
  std::error_code ec;
  r.self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (r.self.empty()) r.self = argv[0];
  r.base_args = base_args_for_sweep(argc, argv, r.axes);
  r.output_dir = fleet.replay.output.output_dir;
  r.local = fleet.local;
  r.workers_spec = fleet.workers_spec;
  r.shared_l2 = f.shared_l2;
  r.shared_namespace = fleet.replay.engine.l2_key_namespace;
  r.mrc_path = f.mrc;
  r.start_delay_s = fleet.start_delay_s;
  return run_sweep(r);
}

}  // namespace fleet::sweep
