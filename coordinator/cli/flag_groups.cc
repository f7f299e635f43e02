#include "flag_groups.h"

#include <memory>
#include <vector>

namespace fleet::cli {

std::string FlagGroupsHelp::make_expanded(const CLI::App* sub) const {
  if (!sub->get_name().empty()) return CLI::Formatter::make_expanded(sub);  // a subcommand
  // Hidden flags (->group("")) stay hidden, as in the main list.
  const std::vector<const CLI::Option*> flags = sub->get_options(
      [](const CLI::Option* o) { return o->nonpositional() && !o->get_group().empty(); });
  return flags.empty() ? std::string() : make_group(sub->get_group(), false, flags);
}

CLI::App& flag_group(CLI::App& app, const std::string& heading) {
  if (!std::dynamic_pointer_cast<FlagGroupsHelp>(app.get_formatter())) {
    app.formatter(std::make_shared<FlagGroupsHelp>());
  }
  CLI::App& group = *app.add_option_group(heading);
  group.set_help_flag();  // a group inherits -h,--help; the main list has it once
  return group;
}

void for_each_flag(const CLI::App& app, const std::function<void(const CLI::Option&)>& fn) {
  for (const CLI::Option* opt : app.get_options()) fn(*opt);
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name().empty()) for_each_flag(*sub, fn);  // an option group
  }
}

}  // namespace fleet::cli
