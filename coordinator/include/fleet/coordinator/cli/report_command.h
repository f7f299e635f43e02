// `coordinator report DIR` (docs/report.md): rebuild report.html from a run's output directory;
// with --contention, the L2 contention table across fleet sizes (docs/contention.md).
#pragma once

namespace fleet::report::html {

// argv[0] is "report".
int report_command(int argc, char** argv);

}  // namespace fleet::report::html
