// The L2 page's own sections (l2_report.h), each read through model_fields.h and never
// throwing; the verdict and the latency section are the storage report's (report_sections.h).
#pragma once

#include <string>

#include "fleet/insight/html/model_fields.h"
#include "fleet/summary/l2_run_stats.h"

namespace fleet::report::html {

std::string l2_run_section(const Json& model);
std::string l2_operations_section(const Json& model);
std::string l2_waits_section(const Json& model);
std::string l2_outcomes_section(const Json& model);
std::string l2_plan_section(const Json& model);
std::string l2_nodes_section(const Json& model);  // "" without nodes (an embedded run)
// The fairness view of a fleet run (l2_fairness.cc): its model part (null below two nodes) and
// its section ("" without one).
Json l2_fairness_json(const summary::L2RunStats& run);
std::string l2_fairness_section(const Json& model);

}  // namespace fleet::report::html
