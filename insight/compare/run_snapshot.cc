#include "fleet/insight/compare/run_snapshot.h"

#include <filesystem>
#include <fstream>

#include "fleet/summary/run_summary_json.h"

namespace fleet::compare {

RunSnapshot load_run(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw RunInputError(dir + ": not a directory");
  const fs::path path = fs::path(dir) / "fleet_summary.json";
  // Not opened to find out: a FIFO there would block the open.
  if (!fs::exists(path, ec)) {
    throw RunInputError(path.string() + ": cannot read it (is " + dir + " a run's --output-dir?)");
  }
  Result<summary::RunSummary> read = summary::read_run_summary(dir);
  if (!read) throw RunInputError(read.status().message());
  RunSnapshot run;
  run.dir = dir;
  run.summary = std::move(read).value();
  mark_partial(run);
  return run;
}

void mark_partial(RunSnapshot& run) {
  const summary::RunSummary& s = run.summary;
  std::string why;
  for (const auto& node : s.nodes) {
    if (node.status == "ok") continue;
    const std::string& lost = node.counter.lost_reason;
    why += (why.empty() ? "" : "; ") + std::string("node ") + node.name + " " +
           (node.status.empty() ? "without a status" : node.status) +
           (lost.empty() ? "" : ": " + lost);
  }
  run.partial = s.stopped_early || !why.empty();
  run.partial_reason = !why.empty() ? why : s.stopped_early ? "the run stopped early" : "";
}

}  // namespace fleet::compare
