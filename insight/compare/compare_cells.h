// One compared quantity as table cells for compare.html: A, B, the change (signed), the
// relative change, the 95 % interval and a significance badge, each number formatted as the
// run report formats its unit.
#pragma once

#include <string>
#include <vector>

#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/model_fields.h"
#include "fleet/insight/html/number_format.h"

namespace fleet::compare {

using report::html::Cell;
using report::html::Json;

// A number formatter of number_format.h (fmt_ms, fmt_exact, fmt_percent, ...).
using Format = std::string (*)(report::html::Number);

// The column headers matching change_cells: A, B, Change, Rel., 95 % CI, "".
std::vector<report::html::Column> change_columns(const std::string& first);
// `change` is a compare.json change object ({a, b, change, relative, ci, significance}).
std::vector<Cell> change_cells(Cell first, const Json& change, Format format);

}  // namespace fleet::compare
