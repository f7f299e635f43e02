// `lct lint FILE [--json]` on an L2 trace (docs/lct.md, "L2 traces"): the checks of
// trace::L2Checks, printed as the storage lint prints its own (one line per check, the first
// offsets of each finding), exit 1 when any problem (not a note) was found.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/trace/errors.h"
#include "fleet/trace/l2_checks.h"
#include "fleet/trace/l2_reader.h"
#include "lct.h"

namespace fleet::lct {

namespace {

using Json = nlohmann::ordered_json;

class CollectingReporter final : public trace::Reporter {
 public:
  void warning(uint64_t offset, std::string_view what) override {
    items.emplace_back(offset, std::string(what));
  }
  std::vector<std::pair<uint64_t, std::string>> items;
};

std::string offsets_text(const trace::L2Finding& f) {
  std::string s;
  for (size_t i = 0; i < f.offsets.size(); ++i) s += (i ? ", " : "") + std::to_string(f.offsets[i]);
  return s + (f.count > f.offsets.size() ? ", ..." : "");
}

std::string render_text(const std::string& file, const trace::Header& h,
                        const trace::L2Checks& checks) {
  const trace::L2Summary& s = checks.summary();
  std::string out = "lct lint " + file + "\n";
  out += "header: level " + h.level + ", format_version " + std::to_string(h.format_version) +
         ", trace_schema_version " + std::to_string(h.trace_schema_version) +
         ", sm_config_digest " + (h.sm_config_digest.empty() ? "(none)" : h.sm_config_digest) +
         "\n";
  out += "records: " + std::to_string(s.records) + " read, " + std::to_string(s.submissions) +
         " submissions, " + std::to_string(s.end_markers.size()) + " end marker(s)\n";
  for (const trace::L2Finding& f : checks.findings()) {
    const char* tag = f.count == 0 ? "ok  " : f.problem ? "FAIL" : "note";
    out += "  " + std::string(tag) + "  " + f.title + ": " + std::to_string(f.count);
    if (f.count > 0) out += " (at offsets " + offsets_text(f) + ")";
    out += "\n";
    for (size_t i = 0; i < f.messages.size(); ++i)
      out += "          @" + std::to_string(f.offsets[i]) + ": " + f.messages[i] + "\n";
  }
  const size_t problems = checks.problems();
  out += problems == 0 ? "result: clean\n"
                       : "result: " + std::to_string(problems) + " kind(s) of problem found\n";
  return out;
}

std::string render_json(const std::string& file, const trace::Header& h,
                        const trace::L2Checks& checks) {
  Json list = Json::array();
  for (const trace::L2Finding& f : checks.findings()) {
    list.push_back({{"id", f.id},
                    {"title", f.title},
                    {"problem", f.problem},
                    {"count", f.count},
                    {"offsets", f.offsets},
                    {"messages", f.messages}});
  }
  const trace::L2Summary& s = checks.summary();
  Json j = {{"file", file},
            {"clean", checks.problems() == 0},
            {"problems", checks.problems()},
            {"header",
             {{"level", h.level},
              {"format_version", h.format_version},
              {"trace_schema_version", h.trace_schema_version},
              {"sm_config_digest", h.sm_config_digest}}},
            {"records",
             {{"read", s.records},
              {"submissions", s.submissions},
              {"end_markers", s.end_markers.size()}}},
            {"checks", list}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

ExitCode run_l2_lint(const LintArgs& a) {
  CollectingReporter reporter;
  trace::ReaderOptions ro;
  ro.max_frame_bytes = a.max_frame_mb << 20;
  ro.reporter = &reporter;
  std::unique_ptr<trace::L2Reader> reader;
  try {
    reader = std::make_unique<trace::L2Reader>(a.file, ro);
  } catch (const trace::TraceError& e) {
    print_error("lint", e.what());
    return ExitCode::kBadInput;
  }
  trace::L2Checks checks(a.max_offsets);
  trace::L2Record r;
  for (;;) {
    try {
      if (!reader->next(r)) break;
    } catch (const trace::TraceError& e) {
      checks.unreadable(reader->counters().bytes_consumed, e.what());
      break;
    }
    checks.add(r);
  }
  checks.finish(reporter.items);
  const std::string out = a.json ? render_json(a.file, reader->header(), checks)
                                 : render_text(a.file, reader->header(), checks);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return checks.problems() == 0 ? ExitCode::kOk : ExitCode::kRecordsFailed;
}

}  // namespace fleet::lct
