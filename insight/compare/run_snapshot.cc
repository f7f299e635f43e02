#include "fleet/insight/compare/run_snapshot.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fleet/util/json_file.h"

namespace fleet::compare {

namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

RunSnapshot load_run(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw RunInputError(dir + ": not a directory");
  const fs::path path = fs::path(dir) / "fleet_summary.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw RunInputError(path.string() + ": cannot read it (is " + dir + " a run's --output-dir?)");
  }
  std::stringstream text;
  text << in.rdbuf();
  RunSnapshot run;
  run.dir = dir;
  try {
    run.summary = util::parse_json_bounded(text.str(), path.string());
  } catch (const std::runtime_error& e) {
    throw RunInputError(e.what());
  }
  if (!run.summary.is_object()) throw RunInputError(path.string() + ": not a JSON object");
  mark_partial(run);
  return run;
}

void mark_partial(RunSnapshot& run) {
  const nlohmann::json& s = run.summary;
  std::string why;
  if (s.contains("nodes") && s["nodes"].is_array()) {
    for (const auto& node : s["nodes"]) {
      const std::string status = text_of(node, "status");
      if (status == "ok") continue;
      std::string lost;
      if (node.is_object() && node.contains("engine")) {
        const auto& engine = node["engine"];
        if (engine.is_object() && engine.contains("counters"))
          lost = text_of(engine["counters"], "lost_reason");
      }
      why += (why.empty() ? "" : "; ") + std::string("node ") + text_of(node, "name") + " " +
             (status.empty() ? "without a status" : status) + (lost.empty() ? "" : ": " + lost);
    }
  }
  const bool stopped = s.contains("stopped_early") && s["stopped_early"].is_boolean() &&
                       s["stopped_early"].get<bool>();
  run.partial = stopped || !why.empty();
  run.partial_reason = !why.empty() ? why : stopped ? "the run stopped early" : "";
}

}  // namespace fleet::compare
