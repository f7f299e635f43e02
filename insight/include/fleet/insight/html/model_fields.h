// Reading the report model without trusting it: any field may be missing or of the wrong type
// in an old or partial run, so lookups fall back to nullptr / nullopt / "" / an empty array.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace fleet::report::html {

using Json = nlohmann::json;
using Path = std::initializer_list<std::string_view>;

// j[path[0]][path[1]]..., or nullptr when a step is not an object holding the key.
const Json* at(const Json& j, Path path);
// A finite number at the path (bools are not numbers here).
std::optional<double> num(const Json& j, Path path);
// A string at the path; a number is written as JSON; "" otherwise.
std::string str(const Json& j, Path path);
// True only for a boolean true.
bool flag(const Json& j, Path path);
// The array (or object) at the path, or a shared empty one: safe to iterate.
const Json& arr(const Json& j, Path path);
const Json& obj(const Json& j, Path path);

}  // namespace fleet::report::html
