#include "fleet/flags/range_checks.h"

#include <charconv>
#include <string>
#include <utility>

namespace fleet::flags {

namespace {

// The shortest text that reads back as `v`: 0, 4095, 0.5, 1e+06.
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// A validator that reads the value as a number and asks `fits` about it; `rule` is what the
// message says the value must be ("≥ 0", "between 1 and 256").
template <class Fits>
CLI::Validator numeric_check(std::string rule, std::string help, Fits fits) {
  auto check = [rule, fits](std::string& input) -> std::string {
    double v = 0;
    if (!CLI::detail::lexical_cast(input, v)) return "must be a number, got " + input;
    return fits(v) ? std::string() : "must be " + rule + ", got " + input;
  };
  return CLI::Validator(check, std::move(help));
}

}  // namespace

CLI::Validator at_least(double min) {
  const std::string rule = "≥ " + shortest(min);
  return numeric_check(rule, rule, [min](double v) { return v >= min; });
}

CLI::Validator above(double min) {
  const std::string rule = "> " + shortest(min);
  return numeric_check(rule, rule, [min](double v) { return v > min; });
}

CLI::Validator between(double min, double max) {
  return numeric_check("between " + shortest(min) + " and " + shortest(max),
                       "[" + shortest(min) + ", " + shortest(max) + "]",
                       [min, max](double v) { return v >= min && v <= max; });
}

CLI::Validator above_at_most(double min, double max) {
  return numeric_check("> " + shortest(min) + " and ≤ " + shortest(max),
                       "(" + shortest(min) + ", " + shortest(max) + "]",
                       [min, max](double v) { return v > min && v <= max; });
}

}  // namespace fleet::flags
