// What reading our own JSON back gives, without the text: a run draws report.html from the
// summary it holds instead of parsing the fleet_summary.json it has just written (parsing was
// 40 % of the page's cost, docs/benchmarks.md, "Insight and report.html: what
// they cost"), and the page must be the one
// `coordinator report DIR` draws from the file.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>

namespace fleet::util {

// The value read_json_file returns for a file holding py_json_dumps_indent(written, ·), whose
// text is `text_bytes` long: integers by sign (non-negative ones unsigned, as the parser reads
// them), floats and strings as they are, keys sorted. nullopt wherever the text would not carry
// the value back as it is, so the caller reads the file instead: a non-finite number (written
// as NaN or Infinity, which the reader refuses), a string or key that is not valid UTF-8
// (written with U+FFFD), nesting or a size the reader refuses.
std::optional<nlohmann::json> json_as_read_back(const nlohmann::ordered_json& written,
                                                std::size_t text_bytes);

}  // namespace fleet::util
