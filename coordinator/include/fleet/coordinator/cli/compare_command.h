// `coordinator compare RUN_A RUN_B [...]` (docs/compare.md): exit 0, 2 (bad input or a
// malformed --fail-on) or 4 (a threshold crossed).
#pragma once

#include "fleet/util/exit_codes.h"

namespace fleet::compare {

// argv[0] is "compare".
ExitCode compare_command(int argc, char** argv);

}  // namespace fleet::compare
