// `coordinator report DIR` (docs/report.md): rebuild report.html from a run's output directory;
// with --contention, the L2 contention table across fleet sizes (docs/contention.md).
#pragma once

#include "fleet/util/exit_codes.h"

namespace fleet::report::html {

// argv[0] is "report".
ExitCode report_command(int argc, char** argv);

}  // namespace fleet::report::html
