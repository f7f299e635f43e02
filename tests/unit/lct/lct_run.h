// Running the `lct` binary from a test: stdout, stderr and exit code of one command line, and
// per-test temporary paths (ctest runs the tests of a suite in parallel).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "../trace/trace_test_bytes.h"
#include "test_paths.h"

namespace fleet::trace::testing {

inline const std::string kLct = ::fleet::test::bin_dir() + "/tools/lct/lct";

struct LctRun {
  int code = -1;
  std::string out, err;
};

inline std::string test_unique_name() {
  return std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
         std::to_string(::getpid());
}

// Runs `lct ARGS` in `dir` through the shell, capturing stdout, stderr and the exit code.
inline LctRun lct(const std::string& args, const std::string& dir = ".") {
  std::string base = ::testing::TempDir() + "/lct_run_" + test_unique_name();
  std::string cmd =
      "cd '" + dir + "' && '" + kLct + "' " + args + " >" + base + ".out 2>" + base + ".err";
  int st = std::system(cmd.c_str());
  LctRun r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = read_bytes(base + ".out");
  r.err = read_bytes(base + ".err");
  return r;
}

// Unique per test and process.
inline std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "/lct_" + test_unique_name() + "_" + name;
}

}  // namespace fleet::trace::testing
