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
  // A run has a dozen operation kinds; each costs compare a bootstrap (2,000 took 13.5 s).
  constexpr size_t kMaxOps = 256;
  if (read->ops.size() > kMaxOps) {
    throw RunInputError(path.string() + ": " + std::to_string(read->ops.size()) +
                        " operation kinds, more than the " + std::to_string(kMaxOps) +
                        " a run has (damaged?)");
  }
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
