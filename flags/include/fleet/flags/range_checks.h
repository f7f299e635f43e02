// Numeric range checks for flags, worded as a person would write them: `--speed -3` answers
// "--speed: must be ≥ 0, got -3" (CLI11 names the flag), not CLI11's "Value -3 not in range
// 0.000000 to 1797693134862315708..." for a bound it prints with 309 digits. The bounds print
// in their shortest form (4095, 0.5, 1e+06); the value as it was typed.
#pragma once

#include <CLI/CLI.hpp>

namespace fleet::flags {

CLI::Validator at_least(double min);                   // min ≤ value
CLI::Validator above(double min);                      // min < value
CLI::Validator between(double min, double max);        // min ≤ value ≤ max
CLI::Validator above_at_most(double min, double max);  // min < value ≤ max

}  // namespace fleet::flags
