// The page's sections, in page order. Each returns one <section> (or "" when the run has
// nothing for it), reads the model only through model_fields.h and never throws.
#pragma once

#include <string>

#include "fleet/insight/html/model_fields.h"
#include "fleet/insight/html/series_view.h"

namespace fleet::report::html {

std::string verdict_section(const Json& model);
std::string run_section(const Json& model);
std::string throughput_section(const Json& model, const SeriesColours& colours);
std::string lateness_section(const Json& model, const SeriesColours& colours);
std::string latency_section(const Json& model);
std::string cache_section(const Json& model);
// "" when the run did not classify misses (docs/causal-pacing.md "Miss attribution").
std::string compression_section(const Json& model);
// "" when the model has no "contention" (no node used L2).
std::string contention_section(const Json& model, const SeriesColours& colours);
std::string nodes_section(const Json& model, const SeriesColours& colours);
std::string counters_section(const Json& model);

}  // namespace fleet::report::html
