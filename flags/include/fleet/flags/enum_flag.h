// A flag whose value names an enumerator: CLI11 turns the name into the enum (no second parse
// by hand) and refuses anything else with the names allowed ("--shard: must be one of none,
// time, key; got 'rows'"). The name table is the enum's own, defined once beside it, e.g.
// plan::kShardModeNames; code that prints the enum reads the same table.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fleet::flags {

template <class E>
using EnumName = std::pair<std::string_view, E>;

// The names of a table, comma-separated: "none, time, key".
template <class Table>
std::string enum_names(const Table& names) {
  std::string out;
  for (const auto& [name, value] : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// The name `value` has in `names` ("?" if none: a table that misses an enumerator).
template <class Table, class E>
std::string_view enum_name(const Table& names, E value) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  return "?";
}

// Declares `flag` bound to `value`, accepting exactly the names of `names`; the default shown in
// --help is the current value's name.
template <class E, class Table>
CLI::Option* add_enum_flag(CLI::App& app, const std::string& flag, E& value, const Table& names,
                           const std::string& help) {
  static_assert(std::is_enum_v<E>);
  const std::string listed = enum_names(names);
  auto to_number = [names, listed](std::string& input) -> std::string {
    for (const auto& [name, v] : names) {
      if (input == name) {
        input = std::to_string(static_cast<std::underlying_type_t<E>>(v));
        return {};
      }
    }
    return "must be one of " + listed + "; got '" + input + "'";
  };
  std::string choices = "{";
  for (const auto& [name, v] : names) choices += std::string(name) + ",";
  choices.back() = '}';
  return app.add_option(flag, value, help)
      ->transform(CLI::Validator(to_number, choices))
      ->type_name("TEXT")
      ->default_str(std::string(enum_name(names, value)));
}

}  // namespace fleet::flags
