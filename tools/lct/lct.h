// The `lct` subcommands as plain functions, so main.cc only parses flags. Each returns the
// shared fleet::ExitCode (fleet/util/exit_codes.h), as every subcommand reads it: kOk success,
// lint found nothing; kRecordsFailed lint found problems, or the file failed mid-read;
// kBadInput bad flags, unreadable path, invalid header. Documented in docs/lct.md and
// `lct --help`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/synthetic_trace.h"
#include "fleet/util/exit_codes.h"

namespace fleet::lct {

ExitCode run_info(const std::string& file, uint32_t max_frame_mb);
// `info` on a trace whose header says level "l2" (l2_info.cc).
ExitCode run_l2_info(const std::string& file, uint32_t max_frame_mb);

struct LintArgs {
  std::string file;
  bool json = false;
  uint32_t max_frame_mb = 64;
  size_t max_offsets = 5;  // first offsets listed per finding
};
ExitCode run_lint(const LintArgs& a);
ExitCode run_l2_lint(const LintArgs& a);  // level "l2" (l2_lint.cc)

struct CatArgs {
  std::string file;
  int64_t head = -1;  // < 0: all records
  uint32_t max_frame_mb = 64;
};
ExitCode run_cat(const CatArgs& a);

struct GenArgs {
  std::string output;
  trace::SyntheticOptions options;
  bool quiet = false;
};
ExitCode run_gen(const GenArgs& a);

// Prints "lct <cmd>: error: <msg>" to stderr.
void print_error(const char* cmd, const std::string& msg);

// The trace with frames up to `max_frame_mb`, or nullptr after print_error (the reader's message
// names the file and offset): what every subcommand that reads a trace starts with.
std::unique_ptr<trace::FrameReader> open_trace(const char* cmd, const std::string& file,
                                               uint32_t max_frame_mb);

}  // namespace fleet::lct
