// LMCache's CLI "Metrics" report (lmcache/cli/metrics): a title plus ordered sections of
// (key, label, value) rows, rendered either as the fixed-width terminal block or as JSON.
// Fleet appends its own sections (lateness, engine) after LMCache's without touching theirs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fleet::stats {

// Python value kinds the renderer distinguishes: None => "N/A"/null, float => "%.2f"/repr,
// everything else => str()/JSON literal.
using MetricValue = std::variant<std::monostate, bool, int64_t, double, std::string>;

struct MetricRow {
  std::string key;    // JSON key
  std::string label;  // terminal label (":" is appended)
  MetricValue value;
};

struct MetricSection {
  // No key => rows go to the top level of "metrics" in JSON and no header line is drawn.
  std::optional<std::string> key;
  std::optional<std::string> label;
  std::vector<MetricRow> rows;
};

inline constexpr int kLmcacheTerminalWidth = 64;  // what `lmcache trace replay` passes

// TerminalFormatter.format(...) + "\n" (what StreamHandler writes).
std::string render_metrics_terminal(const std::string& title,
                                    const std::vector<MetricSection>& sections,
                                    int width = kLmcacheTerminalWidth);
// JsonFormatter.format(...) + "\n": indent 2, insertion order; a repeated key keeps its first
// position and its last value, as a Python dict does.
std::string render_metrics_json(const std::string& title,
                                const std::vector<MetricSection>& sections);

// Python str.center(width, fill) on code points: the odd pad char goes right when width is
// even, left when width is odd (CPython: left = marg/2 + (marg & width & 1)).
std::string py_center(const std::string& text, int width, char fill);

}  // namespace fleet::stats
