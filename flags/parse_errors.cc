#include "fleet/flags/parse_errors.h"

namespace fleet::flags {

ExitCode exit_code_of(const CLI::App& app, const CLI::ParseError& e) {
  // CLI11 gives help and --version exit code 0 (CallForHelp, CallForAllHelp, CallForVersion).
  return app.exit(e) == 0 ? ExitCode::kOk : ExitCode::kBadInput;
}

std::optional<ExitCode> parse_or_exit(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return exit_code_of(app, e);
  }
  return std::nullopt;
}

}  // namespace fleet::flags
