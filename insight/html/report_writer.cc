#include "fleet/insight/html/report_writer.h"

#include <filesystem>
#include <utility>
#include <vector>

#include "fleet/insight/html/l2_report.h"
#include "fleet/insight/html/report_model.h"
#include "fleet/insight/html/report_page.h"
#include "fleet/util/output_file.h"

namespace fleet::report::html {

Result<std::string> write_report_page(const std::string& dir, const std::string& out_path,
                                      std::optional<summary::RunSummary> summary) {
  // An L2 replay's directory holds l2_replay_stats.json, not fleet_summary.json: its own page.
  if (!summary && summary::is_l2_run_dir(dir)) return write_l2_report_page(dir, out_path);
  const Result<RunFiles> files = load_run_files(dir, std::move(summary));
  if (!files) return files.status();
  const ReportPageParts page = render_report_parts(build_report_model(files.value()));
  const std::string path =
      out_path.empty() ? (std::filesystem::path(dir) / "report.html").string() : out_path;
  std::vector<std::string_view> pieces{page.head};
  pieces.insert(pieces.end(), page.scripts_and_end.begin(), page.scripts_and_end.end());
  // A reader never sees half a page.
  if (Status s = util::write_file_atomically(path, pieces); !s) return s;
  return path;
}

}  // namespace fleet::report::html
