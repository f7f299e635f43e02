// compare.html's sections, in page order. Each reads the page model (compare.json's object
// plus the runs' CDFs) through the run report's model_fields.h, so a missing or wrongly typed
// field shows as "—" and never throws.
#pragma once

#include <string>

#include "fleet/insight/html/model_fields.h"

namespace fleet::compare {

using report::html::Json;

std::string verdict_section(const Json& model);
std::string runs_section(const Json& model);
std::string latency_section(const Json& model);
std::string cache_section(const Json& model);  // "" when neither run kept a cache
std::string records_section(const Json& model);
std::string config_section(const Json& model);
std::string thresholds_section(const Json& model);  // "" without --fail-on

}  // namespace fleet::compare
