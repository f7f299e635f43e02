// Untrusted input: the file given to `lct lint` (tools/lct/lint.cc, run_lint), in its text and
// --json forms (chosen by the input's length, so both see every kind of file). Lint reports
// whatever it finds through its exit code; nothing may escape it: any exception, crash,
// sanitizer report, leak, hang or out-of-memory is a bug. Its report goes to /dev/null; lint.cc
// is built into this target with the print_error below (info.cc's writes to stderr, which is
// libFuzzer's channel).
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_util.h"
#include "lct.h"

namespace fleet::lct {
void print_error(const char*, const std::string&) {}
}  // namespace fleet::lct

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  // stdout carries lint's report; libFuzzer writes to stderr.
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0 || dup2(null, STDOUT_FILENO) < 0) std::abort();
  close(null);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fleet::lct::LintArgs a;
  a.file = fleet::fuzz::input_file(data, size);
  a.json = size % 2 == 1;
  (void)fleet::lct::run_lint(a);
  std::fflush(stdout);
  return 0;
}
