// The `lct` subcommands as plain functions, so main.cc only parses flags. Exit codes are shared
// by all subcommands and documented in docs/lct.md and `lct --help`.
#pragma once

#include <cstdint>
#include <string>

#include "fleet/trace/synthetic_trace.h"

namespace fleet::lct {

inline constexpr int kExitOk = 0;        // success; lint found nothing
inline constexpr int kExitProblems = 1;  // lint found problems, or the file failed mid-read
inline constexpr int kExitUsage = 2;     // bad flags, unreadable path, invalid header

int run_info(const std::string& file, uint32_t max_frame_mb);

struct LintArgs {
  std::string file;
  bool json = false;
  uint32_t max_frame_mb = 64;
  size_t max_offsets = 5;  // first offsets listed per finding
};
int run_lint(const LintArgs& a);

struct CatArgs {
  std::string file;
  int64_t head = -1;  // < 0: all records
  uint32_t max_frame_mb = 64;
};
int run_cat(const CatArgs& a);

struct GenArgs {
  std::string output;
  trace::SyntheticOptions options;
  bool quiet = false;
};
int run_gen(const GenArgs& a);

// Prints "lct <cmd>: error: <msg>" to stderr.
void print_error(const char* cmd, const std::string& msg);

}  // namespace fleet::lct
