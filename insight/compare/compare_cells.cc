#include "compare_cells.h"

namespace fleet::compare {

namespace {

using namespace report::html;

std::string signed_text(Format format, Number v) {
  if (!v) return kMissing;
  if (*v == 0) return "0";
  return (*v > 0 ? "+" : "") + format(v);
}

std::string relative_text(Number r) {
  if (!r) return kMissing;
  return (*r > 0 ? "+" : "") + fmt_percent(r);
}

std::string significance_badge(const std::string& s) {
  if (s == "increase") return badge("warn", "▲ increase");
  if (s == "decrease") return badge("warn", "▼ decrease");
  if (s == "not_significant") return "<span class=\"muted\">no significant change</span>";
  return "";
}

}  // namespace

std::vector<Column> change_columns(const std::string& first) {
  return {{first},
          {"A", true},
          {"B", true},
          {"Change", true, "B − A"},
          {"Rel.", true, "(B − A) / A"},
          {"95 % CI of the change", true},
          {""}};
}

std::vector<Cell> change_cells(Cell first, const Json& change, Format format) {
  const Number a = num(change, {"a"}), b = num(change, {"b"}), d = num(change, {"change"});
  std::string ci;
  const Json& interval = arr(change, {"ci"});
  if (interval.is_array() && interval.size() == 2 && interval[0].is_number() &&
      interval[1].is_number()) {
    ci = "[" + signed_text(format, interval[0].get<double>()) + ", " +
         signed_text(format, interval[1].get<double>()) + "]";
  }
  return {std::move(first),
          Cell::number(format(a), a),
          Cell::number(format(b), b),
          Cell::number(d ? signed_text(format, d) : "", d),
          Cell::number(d ? relative_text(num(change, {"relative"})) : ""),
          Cell::number(ci),
          Cell::raw(significance_badge(str(change, {"significance"})))};
}

}  // namespace fleet::compare
