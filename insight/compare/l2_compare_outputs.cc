// Two L2 runs' comparison written out: the terminal tables and compare.json.
#include "fleet/insight/compare/l2_comparison.h"
#include "number_text.h"
#include "text_table.h"

namespace fleet::compare {

namespace {

std::vector<std::string> delta_cells(const L2Delta& d) {
  const auto rel = d.relative();
  return {d.metric, number_text(d.a), number_text(d.b), number_text(d.delta(), true),
          rel ? percent_text(*rel) : ""};
}

nlohmann::json delta_json(const L2Delta& d) {
  const auto rel = d.relative();
  return {{"metric", d.metric},
          {"a", d.a},
          {"b", d.b},
          {"delta", d.delta()},
          {"relative", rel ? nlohmann::json(*rel) : nlohmann::json(nullptr)}};
}

}  // namespace

std::string l2_terminal_table(const L2Comparison& c,
                              const std::vector<ThresholdOutcome>& outcomes) {
  std::string out = "Comparing L2 runs\n  A: " + c.dir_a + "\n  B: " + c.dir_b + "\n";
  TextTable params({"parameter", "A", "B", ""}, {false, false, false, false});
  for (const L2Parameter& p : c.parameters)
    params.add_row({p.name, p.a, p.b, p.differs() ? "differs" : ""});
  out += "\n" + params.render();
  TextTable run({"run", "A", "B", "change", "rel."}, {false, true, true, true, true});
  for (const L2Delta& d : c.run) run.add_row(delta_cells(d));
  out += "\n" + run.render();
  TextTable kinds({"per kind", "A", "B", "change", "rel."}, {false, true, true, true, true});
  for (const L2KindComparison& k : c.kinds) {
    std::string heading = k.kind;
    if (!k.in_a) heading += " (not in A)";
    if (!k.in_b) heading += " (not in B)";
    kinds.add_heading(heading);
    for (const L2Delta& d : k.metrics) kinds.add_row(delta_cells(d));
  }
  out += "\n" + kinds.render();
  if (!outcomes.empty()) {
    out += "\nThresholds (--fail-on)\n";
    for (const ThresholdOutcome& o : outcomes) out += "  " + o.message + "\n";
  }
  return out;
}

nlohmann::json l2_comparison_json(const L2Comparison& c,
                                  const std::vector<ThresholdOutcome>& outcomes) {
  nlohmann::json params = nlohmann::json::array(), differ = nlohmann::json::array();
  for (const L2Parameter& p : c.parameters) {
    params.push_back({{"name", p.name}, {"a", p.a}, {"b", p.b}, {"differs", p.differs()}});
    if (p.differs()) differ.push_back(p.name);
  }
  nlohmann::json run = nlohmann::json::array();
  for (const L2Delta& d : c.run) run.push_back(delta_json(d));
  nlohmann::json kinds = nlohmann::json::array();
  for (const L2KindComparison& k : c.kinds) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const L2Delta& d : k.metrics) metrics.push_back(delta_json(d));
    kinds.push_back(
        {{"kind", k.kind}, {"in_a", k.in_a}, {"in_b", k.in_b}, {"metrics", std::move(metrics)}});
  }
  nlohmann::json thresholds = nlohmann::json::array();
  for (const ThresholdOutcome& o : outcomes) {
    thresholds.push_back({{"expression", o.expression},
                          {"evaluated", o.evaluated},
                          {"crossed", o.crossed},
                          {"message", o.message}});
  }
  return {{"level", "l2"},
          {"thresholds", std::move(thresholds)},
          {"a", {{"dir", c.dir_a}}},
          {"b", {{"dir", c.dir_b}}},
          {"parameters", std::move(params)},
          {"parameters_that_differ", std::move(differ)},
          {"run", std::move(run)},
          {"kinds", std::move(kinds)}};
}

}  // namespace fleet::compare
