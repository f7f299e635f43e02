// Running the `lct` binary from a test: stdout, stderr and exit code of one command line, and
// paths in the test's own scratch directory (removed when the test ends).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "../trace/trace_test_bytes.h"
#include "scratch_dir.h"
#include "test_paths.h"

namespace fleet::trace::testing {

inline const std::string kLct = ::fleet::test::bin_dir() + "/tools/lct/lct";

struct LctRun {
  int code = -1;
  std::string out, err;
};

// Runs `lct ARGS` in `dir` through the shell, capturing stdout, stderr and the exit code.
inline LctRun lct(const std::string& args, const std::string& dir = ".") {
  const std::string base = fleet::test::test_scratch_dir() / "lct_run";
  std::string cmd =
      "cd '" + dir + "' && '" + kLct + "' " + args + " >" + base + ".out 2>" + base + ".err";
  int st = std::system(cmd.c_str());
  LctRun r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = read_bytes(base + ".out");
  r.err = read_bytes(base + ".err");
  return r;
}

// `name` in the test's scratch directory.
inline std::string tmp(const std::string& name) { return fleet::test::test_scratch_dir() / name; }

}  // namespace fleet::trace::testing
