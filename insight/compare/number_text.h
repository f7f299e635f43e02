// Numbers as the terminal table and threshold messages print them: four significant digits
// without an exponent (0.01234, 1.234, 1234), an explicit sign for changes, relative changes
// as percentages. The page uses the run report's number_format.h instead.
#pragma once

#include <optional>
#include <string>

namespace fleet::compare {

std::string number_text(double v, bool with_sign = false);
// "n/a" for nullopt.
std::string number_text(std::optional<double> v, bool with_sign = false);
// 0.123 -> "+12.3 %"; infinity -> "+inf %".
std::string percent_text(double fraction);

}  // namespace fleet::compare
