// fleet_summary.json <-> RunSummary: the one writer (key order and number types as the file has
// always had them, docs/outputs.md) and the one reader, tolerant as the report page is: a
// missing or wrongly typed field reads as its default (or an empty optional), never a throw.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/summary/run_summary.h"
#include "fleet/util/status.h"

namespace fleet::summary {

// The file's value; its text is util::py_json_dumps_indent(·, 2) + "\n".
nlohmann::ordered_json to_json(const RunSummary& summary);
// The file's text.
std::string summary_text(const RunSummary& summary);

// Any JSON value (not an object: an empty summary).
RunSummary from_json(const nlohmann::json& j);
// DIR/fleet_summary.json: an error naming the file when it cannot be read or is not a JSON
// object.
Result<RunSummary> read_run_summary(const std::string& dir);

}  // namespace fleet::summary
