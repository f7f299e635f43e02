// CLI11's parse failures as an exit status, in one place for every binary (coordinator, its
// `report` and `compare`, worker, lct): --help and --version print and end with 0; anything else
// prints CLI11's message (naming the flag) and ends with kBadInput.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

#include "fleet/util/exit_codes.h"

namespace fleet::flags {

// Prints what `e` asks for (help, version or the error) and says how the binary ends.
ExitCode exit_code_of(const CLI::App& app, const CLI::ParseError& e);

// Parses the command line; nullopt when the binary goes on, else the status it ends with
// (the help, version or error already printed).
std::optional<ExitCode> parse_or_exit(CLI::App& app, int argc, char** argv);

}  // namespace fleet::flags
