// The coordinator's flags live in CLI11 option groups (Engine, Outputs, Fleet, Sweep,
// Security). CLI11 checks each new flag's names against every flag already in the same App,
// pairwise and by copying name lists (~500 instructions a pair): 62 flags in one App cost
// 1.0M instructions at every start, a sixth of a small replay's. Groups of up to 17 cost a
// fifth of that. Parsing is unchanged (CLI11 looks into option groups for every flag).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace fleet::cli {

// Help that prints an option group as `Heading:` and its flags, as a ->group() heading reads
// (CLI11's own layout nests it under "[Option Group: ...]" and a second "Options:").
class FlagGroupsHelp : public CLI::Formatter {
 public:
  std::string make_expanded(const CLI::App* sub) const override;
};

// A flag group of `app`, its help drawn by FlagGroupsHelp (set on app before the first group).
CLI::App& flag_group(CLI::App& app, const std::string& heading);

// Every flag of `app` and of its option groups.
void for_each_flag(const CLI::App& app, const std::function<void(const CLI::Option&)>& fn);

}  // namespace fleet::cli
