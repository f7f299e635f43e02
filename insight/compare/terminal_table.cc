// The comparison on the terminal: one aligned table per section (records, latency per op,
// cache, lateness), then the config difference and the thresholds, and one summary line.
#include <map>

#include "fleet/insight/compare/compare_outputs.h"
#include "number_text.h"
#include "text_table.h"

namespace fleet::compare {

namespace {

std::string interval_text(const std::optional<Interval>& i) {
  if (!i) return "";
  return "[" + number_text(i->low, true) + ", " + number_text(i->high, true) + "]";
}

std::vector<std::string> change_cells(const std::string& label, const Change& c) {
  const auto rel = c.relative();
  return {label,
          number_text(c.a),
          number_text(c.b),
          c.comparable() ? number_text(c.delta(), true) : "",
          rel ? percent_text(*rel) : "",
          interval_text(c.ci),
          significance_label(c.significance())};
}

TextTable change_table(const std::string& title) {
  return TextTable({title, "A", "B", "change", "rel.", "95 % CI of change", ""},
                   {false, true, true, true, true, false, false});
}

std::string side_line(const char* name, const RunSide& s) {
  std::string out = std::string("  ") + name + ": " + s.dir;
  if (s.partial) out += "  [PARTIAL: " + s.partial_reason + "]";
  return out + "\n";
}

std::string op_heading(const OpComparison& op, bool qualname) {
  std::string out = qualname ? op.qualname : op.short_name;
  if (op.presence == OpComparison::Presence::kAdded) out += "  (added: only in B)";
  if (op.presence == OpComparison::Presence::kRemoved) out += "  (removed: only in A)";
  if (!op.ci_note.empty() && op.presence == OpComparison::Presence::kBoth)
    out += "  (no interval: " + op.ci_note + ")";
  return out;
}

std::string records_section(const Comparison& c) {
  TextTable t = change_table("Records");
  for (const NamedChange& n : c.records) t.add_row(change_cells("  " + n.name, n.change));
  return t.render();
}

std::string latency_section(const Comparison& c) {
  if (c.ops.empty()) return "Latency per operation (ms): neither run recorded an op\n";
  std::map<std::string, int> shorts;
  for (const OpComparison& op : c.ops) ++shorts[op.short_name];
  TextTable t = change_table("Latency per operation (ms)");
  for (const OpComparison& op : c.ops) {
    t.add_heading(op_heading(op, shorts[op.short_name] > 1));
    for (const NamedChange& n : op.stats) t.add_row(change_cells("  " + n.name, n.change));
  }
  return t.render();
}

std::string cache_section(const Comparison& c) {
  if (c.cache.empty()) return "Cache: neither run kept one\n";
  TextTable t = change_table("Cache (fractions of lookup keys)");
  for (const NamedChange& n : c.cache) t.add_row(change_cells("  " + n.name, n.change));
  return t.render();
}

std::string lateness_section(const Comparison& c) {
  TextTable t = change_table("Lateness (us)");
  for (const NamedChange& n : c.lateness) t.add_row(change_cells("  " + n.name, n.change));
  return t.render();
}

std::string misses_section(const Comparison& c) {
  if (c.misses.empty()) return "";
  TextTable t = change_table("Misses (attribution: keys by blame)");
  for (const NamedChange& n : c.misses) t.add_row(change_cells("  " + n.name, n.change));
  return t.render() + "\n";
}

std::string digest8(const std::string& d) { return d.empty() ? "none" : d.substr(0, 8); }

std::string config_section(const Comparison& c) {
  std::string out = "Engine config\n  digest: A " + digest8(c.a.config_digest) + ", B " +
                    digest8(c.b.config_digest) +
                    (c.a.config_digest == c.b.config_digest ? " (same)" : " (differ)") + "\n";
  if (!c.configs_present) return out + "  (a run recorded no engine.config)\n";
  if (c.config.empty()) return out + "  every field is the same\n";
  for (const ConfigDifference& d : c.config) out += "  " + describe(d) + "\n";
  return out;
}

std::string thresholds_section(const std::vector<ThresholdOutcome>& outcomes) {
  if (outcomes.empty()) return "";
  std::string out = "Thresholds (--fail-on)\n";
  for (const ThresholdOutcome& o : outcomes) out += "  " + o.message + "\n";
  return out;
}

std::string summary_line(const Comparison& c, const std::vector<ThresholdOutcome>& outcomes) {
  int latency = 0, significant = 0;
  for (const OpComparison& op : c.ops) {
    for (const NamedChange& n : op.stats) {
      if (!n.change.ci) continue;
      ++latency;
      const Significance s = n.change.significance();
      significant += s == Significance::kIncrease || s == Significance::kDecrease;
    }
  }
  int crossed = 0;
  for (const ThresholdOutcome& o : outcomes) crossed += o.crossed;
  std::string out = "Summary: " + std::to_string(significant) + " of " + std::to_string(latency) +
                    " latency statistics changed significantly; " +
                    std::to_string(c.config.size()) + " config field(s) differ";
  if (!outcomes.empty()) out += "; " + std::to_string(crossed) + " threshold(s) crossed";
  if (c.a.partial || c.b.partial) out += "; PARTIAL input";
  return out + "\n";
}

}  // namespace

std::string terminal_table(const Comparison& c, const std::vector<ThresholdOutcome>& outcomes) {
  std::string out =
      "Fleet Replay comparison (A -> B)\n" + side_line("A", c.a) + side_line("B", c.b);
  out +=
      "  95 % intervals of each change (B - A): latency by bootstrap over the runs' latency\n"
      "  histograms (" +
      std::to_string(c.bootstrap.resamples) + " resamples, seed " +
      std::to_string(c.bootstrap.seed) +
      "), cache rates by Newcombe's score interval on the key counts\n\n";
  out += records_section(c) + "\n" + latency_section(c) + "\n" + cache_section(c) + "\n" +
         lateness_section(c) + "\n" + misses_section(c) + config_section(c) + "\n";
  const std::string thresholds = thresholds_section(outcomes);
  if (!thresholds.empty()) out += thresholds + "\n";
  return out + summary_line(c, outcomes);
}

}  // namespace fleet::compare
