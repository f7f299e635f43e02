// report.html next to a run's other outputs, always rebuilt from the files the run wrote
// (report_model.h), so a finished run and `coordinator report DIR` give the same page.
#pragma once

#include <string>

namespace fleet::report::html {

// Writes DIR/report.html (or `out_path` when given) and returns its path. Throws
// std::runtime_error naming the directory or file.
std::string write_report_page(const std::string& dir, const std::string& out_path = "");

// `coordinator report DIR [-o FILE]`, or `coordinator report --contention [--json OUT] [--check]
// N=DIR...` (contention_sweep.h): argv[0] is "report". Returns the process exit code.
int report_command(int argc, char** argv);

}  // namespace fleet::report::html
