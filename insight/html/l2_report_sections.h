// The L2 page's own sections (l2_report.h), each read through model_fields.h and never
// throwing; the verdict and the latency section are the storage report's (report_sections.h).
#pragma once

#include <string>

#include "fleet/insight/html/model_fields.h"

namespace fleet::report::html {

std::string l2_run_section(const Json& model);
std::string l2_operations_section(const Json& model);
std::string l2_waits_section(const Json& model);
std::string l2_outcomes_section(const Json& model);
std::string l2_plan_section(const Json& model);
std::string l2_nodes_section(const Json& model);  // "" without nodes (an embedded run)

}  // namespace fleet::report::html
