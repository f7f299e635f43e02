// `lct lint FILE [--json]`: everything that would make a replay of this trace misleading,
// found before anyone replays it: header/schema, frames the reader drops, args that fail codec
// decode, unknown qualnames, t_mono going backwards, and write/read lifecycles that do not pair
// up the way LMCache's dispatcher pairs them (read contexts: FIFO per exact key tuple). The
// checks run in LintPass (lint_pass.h); this file opens the trace and prints what they found.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_record.h"
#include "lct.h"
#include "lint_pass.h"

namespace fleet::lct {

namespace {

void print_json(const LintArgs& a, const trace::FrameReader& reader, const LintPass& pass) {
  using J = nlohmann::ordered_json;
  const trace::Header& h = reader.header();
  const auto& c = reader.counters();
  const size_t problems = pass.findings().problems();
  J unknown_j = J::object();
  for (const auto& [q, n] : pass.unknown_qualnames()) unknown_j[q] = n;
  J checks = J::array();
  for (const auto& f : pass.findings().list()) {
    checks.push_back({{"id", f.id},
                      {"section", f.section},
                      {"title", f.title},
                      {"problem", f.problem},
                      {"count", f.count},
                      {"offsets", f.offsets},
                      {"messages", f.messages}});
  }
  const bool storage = h.level == trace::kLevelStorage;
  J j = {{"file", a.file},
         {"clean", problems == 0},
         {"problems", problems},
         {"header",
          {{"level", h.level},
           {"format_version", h.format_version},
           {"trace_schema_version", h.trace_schema_version},
           {"replay_safe", h.trace_schema_version == trace::kReplayableSchema && storage},
           {"sm_config_digest", h.sm_config_digest}}},
         {"records",
          {{"read", pass.records()},
           {"decoded", pass.decoded()},
           {"malformed_skipped", c.malformed_skipped},
           {"truncated_tail_bytes", c.truncated_tail_bytes},
           {"max_t_mono", pass.max_t_mono()}}},
         {"unknown_qualnames", unknown_j},
         {"checks", checks}};
  std::string s = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(s.data(), 1, s.size(), stdout);
}

// One check's line, then its first offsets' messages (and the unknown qualnames, counted).
void append_finding(std::string& out, const Finding& f, const LintPass& pass) {
  const char* tag = f.count == 0 ? "ok  " : f.problem ? "FAIL" : "note";
  out += "  " + std::string(tag) + "  " + f.title + ": " + std::to_string(f.count);
  if (f.count > 0 && f.section != "header") out += " (at offsets " + offsets_text(f) + ")";
  out += "\n";
  for (size_t i = 0; i < f.messages.size() && f.count > 0; ++i) {
    out += "          @" + std::to_string(f.offsets[i]) + ": " + f.messages[i] + "\n";
  }
  if (f.id == "unknown_qualname") {
    for (const auto& [q, n] : pass.unknown_qualnames())
      out += "          " + q + ": " + std::to_string(n) + "\n";
  }
}

void print_text(const LintArgs& a, const trace::FrameReader& reader, const LintPass& pass) {
  const trace::Header& h = reader.header();
  const size_t problems = pass.findings().problems();
  std::string out = "lct lint " + a.file + "\n";
  out += "header: level " + h.level + ", format_version " + std::to_string(h.format_version) +
         ", trace_schema_version " + std::to_string(h.trace_schema_version) +
         ", sm_config_digest " + (h.sm_config_digest.empty() ? "(none)" : h.sm_config_digest) +
         "\n";
  std::string section;
  for (const auto& f : pass.findings().list()) {
    if (f.section != section) {
      section = f.section;
      out += section;
      if (section == "records") {
        out += ": " + std::to_string(pass.records()) + " read, " + std::to_string(pass.decoded()) +
               " decoded into ops";
      }
      out += "\n";
    }
    append_finding(out, f, pass);
  }
  out += problems == 0 ? "result: clean\n"
                       : "result: " + std::to_string(problems) + " kind(s) of problem found\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

ExitCode run_lint(const LintArgs& a) {
  CollectingReporter reporter;
  trace::ReaderOptions ro;
  ro.max_frame_bytes = a.max_frame_mb << 20;
  ro.reporter = &reporter;
  std::unique_ptr<trace::FrameReader> reader;
  try {
    reader = std::make_unique<trace::FrameReader>(a.file, ro);
  } catch (const trace::TraceError& e) {
    if (a.json) {
      nlohmann::ordered_json j = {{"file", a.file}, {"clean", false}, {"error", e.what()}};
      std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    }
    print_error("lint", e.what());
    return ExitCode::kBadInput;
  }
  if (reader->header().level == trace::kLevelL2) return run_l2_lint(a);
  LintPass pass(*reader, a.max_offsets);
  pass.run(reporter);
  if (a.json) {
    print_json(a, *reader, pass);
  } else {
    print_text(a, *reader, pass);
  }
  std::fflush(stdout);
  return pass.findings().problems() == 0 ? ExitCode::kOk : ExitCode::kRecordsFailed;
}

}  // namespace fleet::lct
