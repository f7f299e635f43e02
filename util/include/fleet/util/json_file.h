// Reading a JSON file someone else wrote (a run directory handed to `coordinator report`,
// `compare` or a sweep): bounded in size and nesting, so a hostile or damaged file is a clear
// error naming it, never a stack overflow or an unbounded allocation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/util/status.h"

namespace fleet::util {

inline constexpr size_t kMaxJsonFileBytes = 1ull << 30;  // a 64-node summary is a few MB
inline constexpr int kMaxJsonDepth = 64;                 // ours nest fewer than 10 levels

// The file's JSON, or an error "PATH: ..." when the file cannot be read, is too large, is not
// JSON, or nests deeper than kMaxJsonDepth.
Result<nlohmann::json> read_json_file(const std::string& path);
// The same for text already read; an error starts with `what`.
Result<nlohmann::json> parse_json_bounded(const std::string& text, const std::string& what);

}  // namespace fleet::util
