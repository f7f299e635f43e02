#include "fleet/stats/metrics_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fleet/stats/py_format.h"
#include "fleet/util/pyjson.h"

namespace fleet::stats {

namespace {

// lmcache/cli/metrics/formatter.py _format_value.
std::string terminal_value(const MetricValue& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "N/A"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return py_fixed(d, 2); }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, v);
}

nlohmann::ordered_json json_value(const MetricValue& v) {
  struct Visitor {
    nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
    nlohmann::ordered_json operator()(bool b) const { return b; }
    nlohmann::ordered_json operator()(int64_t i) const { return i; }
    nlohmann::ordered_json operator()(double d) const { return d; }
    nlohmann::ordered_json operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, v);
}

}  // namespace

std::string py_center(const std::string& text, int width, char fill) {
  const auto len = static_cast<int>(py_len(text));
  if (len >= width) return text;
  const int marg = width - len;
  const int left = marg / 2 + (marg & width & 1);
  return std::string(static_cast<std::size_t>(left), fill) + text +
         std::string(static_cast<std::size_t>(marg - left), fill);
}

std::string render_metrics_terminal(const std::string& title,
                                    const std::vector<MetricSection>& sections, int width) {
  std::string out = py_center(" " + title + " ", width, '=');
  out += '\n';
  for (const auto& section : sections) {
    if (section.label) {
      out += py_center(" " + *section.label + " ", width, '-');
      out += '\n';
    }
    for (const auto& row : section.rows) {
      const std::string value = terminal_value(row.value);
      const std::string label = row.label + ":";
      const int pad =
          std::max(1, width - static_cast<int>(py_len(label)) - static_cast<int>(py_len(value)));
      out += label;
      out.append(static_cast<std::size_t>(pad), ' ');
      out += value;
      out += '\n';
    }
  }
  out.append(static_cast<std::size_t>(std::max(width, 0)), '=');
  out += '\n';
  return out;
}

std::string render_metrics_json(const std::string& title,
                                const std::vector<MetricSection>& sections) {
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  for (const auto& section : sections) {
    if (!section.key) {
      for (const auto& row : section.rows) metrics[row.key] = json_value(row.value);
      continue;
    }
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (const auto& row : section.rows) obj[row.key] = json_value(row.value);
    metrics[*section.key] = std::move(obj);
  }
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  doc["title"] = title;
  doc["metrics"] = std::move(metrics);
  return util::py_json_dumps_indent(doc, 2) + "\n";
}

}  // namespace fleet::stats
